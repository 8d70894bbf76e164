// The CUPTI API callbacks: each runtime or driver call the analysis needs is timed from its ENTER to its
// EXIT on the calling thread; a blocking call gets the user's site (Python or native frames), the thread's
// wait for a CPU inside it, and the copy it pairs with; a launch, copy or memset gets its work's keys for
// the GPU model. The callback tables say which calls are on always (syncs, copies) and which only in
// traced stretches (launches, memsets).
#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <utility>

#include "probe_state.h"
#include "sched_delay.h"
#include "work_keys.h"

namespace synclint::probe::inject {
namespace {

thread_local std::uint32_t t_epoch = 0;
thread_local int t_runtime_depth = 0;
thread_local std::uint64_t t_runtime_correlation = 0;
// c10's memcpy_and_sync (.item(), .cpu(), .to(device), ...) is a copy followed at once by a stream sync.
// The pair shares one site: a sync right after a blocking copy reuses the copy's site, and an async copy
// right before a sync gets the sync's site (so the analysis sees which copy the sync waited for).
thread_local std::uint64_t t_copy_end = 0;
thread_local std::uint64_t t_copy_correlation = 0;
thread_local std::int32_t t_copy_site = -1;
thread_local bool t_copy_blocking = false;
// The thread's run_delay when its current call that may block began (sched_delay.h): how long the thread
// waited for a CPU inside the call is its growth until the call returned.
thread_local std::uint64_t t_run_delay_at_enter = kNoRunDelay;
constexpr std::uint64_t kPairGapNs = 10000;

std::int32_t capture_site(bool read) {
  Probe& p = *g;
  auto t0 = p.debug ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point{};
  std::int32_t site = -1;
  if (p.python->active()) {
    p.python_seen.store(true, std::memory_order_relaxed);
    site = p.python->capture(read);
  } else if (!p.python_seen.load(std::memory_order_relaxed)) {
    site = p.native->capture();
    if (p.native->take_new_placeholders()) want_resolve();  // symbolized now, off this thread
  }
  if (p.debug) {
    const auto took = static_cast<std::uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count());
    p.site_ns += took;
    ++p.site_count;
    if (took > 100'000) {  // as it happens, so that it stands among the program's own lines
      const std::uint64_t end = now_ns();
      p.slow_captures.add(end - took, end);
      std::fprintf(stderr, "synclint probe: site capture of %.1f ms ending at %.1f ms\n", static_cast<double>(took) / 1e6,
                   ms_since_start(end));
    }
  }
  return site;
}

// True when the host side of a device-to-host async copy is pageable memory: the call then returns only
// once the copy is done, i.e. it waits for all earlier work on its stream.
bool pageable_d2h(const void* dst, const void* src, bool kind_known_d2h) {
  Probe& p = *g;
  if (p.pointer_attribute == nullptr) return false;
  unsigned int type = 0;
  bool dst_registered = p.pointer_attribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                            reinterpret_cast<CUdeviceptr>(dst)) == CUDA_SUCCESS;
  if (dst_registered) return false;
  if (kind_known_d2h) return true;
  type = 0;
  return p.pointer_attribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, reinterpret_cast<CUdeviceptr>(src)) ==
             CUDA_SUCCESS &&
         type == CU_MEMORYTYPE_DEVICE;
}

bool async_copy_blocks(CUpti_CallbackDomain domain, const CUpti_CallbackData* cb) {
  if (cb->functionParams == nullptr) return false;
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API) {
    const auto* a = static_cast<const cudaMemcpyAsync_v3020_params*>(cb->functionParams);
    if (a->kind == cudaMemcpyDeviceToHost) return pageable_d2h(a->dst, a->src, true);
    if (a->kind == cudaMemcpyDefault) return pageable_d2h(a->dst, a->src, false);
    return false;
  }
  if (std::strncmp(cb->functionName, "cuMemcpyDtoHAsync", 17) == 0) {
    const auto* a = static_cast<const cuMemcpyDtoHAsync_v2_params*>(cb->functionParams);
    return pageable_d2h(a->dstHost, nullptr, true);
  }
  return false;
}

}  // namespace

// A timed Python call around blocking calls (PythonSites::time_calls), on the calling thread.
void on_python_call(std::uint64_t start, std::uint64_t end, std::int32_t site) {
  if (g == nullptr || !g_recording.load(std::memory_order_relaxed) || end < start) return;
  RawCall call;
  call.start = start;
  call.end = end;
  call.site = site;
  call.python_call = true;
  call.traced = g->traced.load(std::memory_order_relaxed);
  g->rec->add_call(call);
}

// A read operator of LibTorch timed by the torch_ops shim, on the thread that ran it: the same as a timed
// Python call around a read (the CUDA calls inside it are found by time and thread).
void on_torch_read(std::uint64_t start, std::uint64_t end) { on_python_call(start, end, -1); }

void CUPTIAPI on_callback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data) {
  if (g_forked.load(std::memory_order_relaxed)) return;
  if (domain == CUPTI_CB_DOMAIN_RESOURCE) {
    if (cbid == CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING && g != nullptr)
      g->cupti.activity_flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    return;
  }
  Probe& p = *g;
  const auto* cb = static_cast<const CUpti_CallbackData*>(data);
  const std::vector<Entry>& table = domain == CUPTI_CB_DOMAIN_RUNTIME_API ? p.runtime : p.driver;
  if (cbid >= table.size() || !table[cbid].on) return;
  const Entry& e = table[cbid];
  bool runtime = domain == CUPTI_CB_DOMAIN_RUNTIME_API;

  const std::uint32_t epoch = g_epoch.load(std::memory_order_relaxed);
  if (t_epoch != epoch) {
    t_epoch = epoch;
    t_runtime_depth = 0;
  }
  if (cb->callbackSite == CUPTI_API_ENTER) {
    if (p.switch_at_sync && !e.windowed && runtime && p.switch_pending.load(std::memory_order_relaxed) >= 0)
      switch_at_sync(p);
    if (p.debug && !e.windowed) {
      p.sync_path_enters.fetch_add(1, std::memory_order_relaxed);
      p.last_sync_path_enter.store(now_ns(), std::memory_order_relaxed);
    }
    if (runtime) {
      ++t_runtime_depth;
      t_runtime_correlation = cb->correlationId;
    } else if (t_runtime_depth > 0) {
      // A driver call made by a runtime call: the runtime call is the one recorded. A memset's GPU
      // record carries this driver call's correlation id: remember which runtime call it belongs to.
      if (e.cls.memset && g_recording.load(std::memory_order_relaxed))
        p.rec->map_correlation(cb->correlationId, t_runtime_correlation);
      return;
    }
    // CUPTI does not document when correlationData may be missing: a call without it is not recorded.
    if (cb->correlationData == nullptr) return;
    if (e.cls.blocking || e.cls.check_pageable) t_run_delay_at_enter = thread_run_delay_ns();
    std::uint64_t start = 0;
    p.cupti.get_timestamp(&start);
    *cb->correlationData = start;
    return;
  }

  // EXIT: the timestamp first, before anything that could wait (the GIL).
  std::uint64_t end = 0;
  p.cupti.get_timestamp(&end);
  struct ExitTimer {  // SYNCLINT_PROBE_DEBUG: the probe's own time per recorded call
    Probe& p;
    std::chrono::steady_clock::time_point t0 = p.debug ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point{};
    ~ExitTimer() {
      if (!p.debug) return;
      p.exit_ns += static_cast<std::uint64_t>(
          std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count());
      ++p.exit_count;
    }
  } timer{p};
  if (runtime) {
    if (t_runtime_depth > 0) --t_runtime_depth;
    // The end of a stretch, at the return of an outermost launch.
    if (p.switch_at_sync && e.windowed && t_runtime_depth == 0 && p.switch_pending.load(std::memory_order_relaxed) == 0)
      switch_at_sync(p, true);
  } else if (t_runtime_depth > 0) {
    return;
  }
  if (!g_recording.load(std::memory_order_relaxed)) return;
  const std::uint64_t run_delay_at_enter = std::exchange(t_run_delay_at_enter, kNoRunDelay);
  RawCall call;
  call.start = cb->correlationData != nullptr ? *cb->correlationData : 0;
  if (call.start == 0 || call.start > end) return;  // its ENTER was not seen (callbacks just switched on)
  call.end = end;
  call.correlation = cb->correlationId;
  call.traced = p.traced.load(std::memory_order_relaxed);
  call.api = e.api;
  call.kind = e.cls.kind;
  // The GPU model learns from the first stretch and models the rest; a recorded stream keeps the launch
  // keys too, for bench/model_check.
  const bool model = p.gpu_model && call.traced;
  if (model || p.record_launch_keys) describe_work(domain, cbid, cb->functionParams, call);
  if (model) call.gpu_modelled = !p.records_live.load(std::memory_order_relaxed);
  bool blocking = e.cls.blocking;
  if (e.cls.check_pageable && async_copy_blocks(domain, cb)) {
    call.kind = HostCallKind::BlockingCopy;
    blocking = true;
  }
  bool paired = call.kind == HostCallKind::StreamSynchronize && t_copy_end != 0 && call.start >= t_copy_end &&
                call.start - t_copy_end <= kPairGapNs;
  // Read once the call is known to block (an async copy only when into pageable memory): a few us after
  // its end, where a preemption would be counted to it too (and cut to its duration).
  const std::uint64_t run_delay = blocking && run_delay_at_enter != kNoRunDelay ? thread_run_delay_ns() : kNoRunDelay;
  if (run_delay != kNoRunDelay && run_delay > run_delay_at_enter) {
    call.descheduled_ns = static_cast<std::uint32_t>(std::min({run_delay - run_delay_at_enter, call.end - call.start,
                                                               std::uint64_t{UINT32_MAX}}));
    if (p.debug && call.descheduled_ns > kDescheduledFloorNs) {
      p.descheduled_calls.fetch_add(1, std::memory_order_relaxed);
      p.descheduled_ns.fetch_add(call.descheduled_ns, std::memory_order_relaxed);
    }
  }
  if (blocking) {
    call.site = paired && t_copy_blocking ? t_copy_site : capture_site(!e.cls.implicit);
    // The probe's own time since the call returned (the pageable check, the site capture): a timed
    // Python call around this one includes it, the program unprobed does not.
    std::uint64_t now = 0;
    p.cupti.get_timestamp(&now);
    call.probe_ns = static_cast<std::uint32_t>(std::min<std::uint64_t>(now > end ? now - end : 0, UINT32_MAX));
  }
  if (model && !call.gpu_modelled) {  // the first stretch goes on while new kinds of work and reads come
    if (call.launch_family != 0) p.settling.saw(call.launch_family);
    if (blocking && call.site >= 0) p.settling.saw(KeySettling::site_key(call.site));
  }
  if (paired && !t_copy_blocking) p.rec->set_last_site(t_copy_correlation, call.site);
  bool copy = call.kind == HostCallKind::AsyncCopy || call.kind == HostCallKind::BlockingCopy;
  t_copy_end = copy ? call.end : 0;
  t_copy_correlation = call.correlation;
  t_copy_site = call.site;
  t_copy_blocking = call.kind == HostCallKind::BlockingCopy;
  p.rec->add_call(call);
  if (p.debug && !e.windowed) {
    p.sync_path_recorded.fetch_add(1, std::memory_order_relaxed);
    p.last_sync_path_recorded.store(end, std::memory_order_relaxed);
  }
  // Sampling: a site that keeps syncing while untraced asks the window thread for a traced stretch.
  if (blocking && call.site >= 0 && p.sample < 1 && p.requests.note(call.site, call.traced)) wake_watcher('N');
}

// Enables the callbacks the analysis needs. Driver calls made by a runtime call are not recorded (the
// runtime call is), so in the driver domain only what the runtime domain cannot see is enabled: direct
// launches (Triton, custom code) and memsets (their GPU records carry the driver call's correlation id);
// driver syncs and copies only with DriverCalls::All. Non-blocking calls are `windowed`: on only
// in traced windows when sampling.
void build_tables(CUpti_CallbackDomain domain, std::uint32_t size, std::vector<Entry>& table, bool all_driver) {
  Probe& p = *g;
  table.assign(size, Entry{});
  const bool runtime = domain == CUPTI_CB_DOMAIN_RUNTIME_API;
  for (std::uint32_t cbid = 1; cbid < size; ++cbid) {
    const char* name = nullptr;
    if (p.cupti.get_callback_name(domain, cbid, &name) != CUPTI_SUCCESS || name == nullptr) continue;
    std::string n = normalize_api_name(name);
    auto cls = classify_api(runtime ? ApiDomain::Runtime : ApiDomain::Driver, n);
    if (!cls) continue;
    const bool sync_path = cls->blocking || cls->kind == HostCallKind::AsyncCopy || cls->check_pageable;
    if (!runtime && !all_driver && sync_path) continue;
    const bool windowed = !sync_path;
    const bool on_now = !windowed || p.traced;
    if (on_now && p.cupti.enable_callback(1, p.subscriber, domain, cbid) != CUPTI_SUCCESS) continue;
    table[cbid] = {true, windowed, *cls, p.rec->add_api(n)};
  }
}

}  // namespace synclint::probe::inject
