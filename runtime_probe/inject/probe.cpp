// libsynclint_probe.so entry point: InitializeInjection, the CUPTI callbacks, the activity buffers, the
// window thread and the exit paths (atexit, CUDA context teardown, SIGINT/SIGTERM, fork).
//
// Environment:
//   SYNCLINT_PROBE_DIR       where report-<pid>.json (and the stream/trace files) go (default ".")
//   SYNCLINT_PROBE_RECORD=1  also write stream-<pid>.json, the raw event stream with every call's launch
//                            key (SYNCLINT_PROBE_STREAM=1 is accepted too); SYNCLINT_PROBE_RECORD_MAX caps
//                            its host calls (20000)
//   SYNCLINT_PROBE_TRACE=1   also write trace-<pid>.json, a Chrome trace-event file
//   SYNCLINT_PROBE_SKIP      path substrings of frames that are not the user's code (see site_filter.h)
//   SYNCLINT_PROBE_WINDOW_MS / SYNCLINT_PROBE_WINDOW_CALLS   window bounds (2000 ms, 200000 calls)
//   SYNCLINT_PROBE_SAMPLE    fraction of the run traced in full (default 0.01; 1: everything). Blocking
//                            calls are recorded all the time; launch callbacks and the Activity API's GPU
//                            records only in traced stretches, the first of which starts with the probe,
//                            and in those that recurring sites with few traced calls ask for.
//   SYNCLINT_PROBE_SAMPLE_MS length of each traced stretch (1000 ms); the untraced rest of each period
//                            makes up the fraction (0.01: 1 s traced in every 100 s)
//   SYNCLINT_PROBE_FIRST_MS  length of the first stretch, from the probe's start (default SAMPLE_MS; at
//                            least 1): it holds the start-up, and on a benchmark of seconds its cost shows
//   SYNCLINT_PROBE_REQUEST_PAST_START=0  a site's traced calls all count towards sparing it a requested
//                            stretch, those of the start-up too (default: only once it has run untraced;
//                            see SiteRequests)
//   SYNCLINT_PROBE_PER_THREAD_BUFFERS=1  CUPTI 13's per-thread activity buffers (default off: with them,
//                            CUPTI crashed LibTorch programs on the H200; docs/probe.md, "A crash in CUPTI")
//   SYNCLINT_PROBE_DRIVER=0  no driver API callbacks (direct driver launches from Triton or custom code are
//                            then not seen); =all also driver syncs and copies (custom code that syncs
//                            through the driver API). Default: driver launches and memsets only.
//   SYNCLINT_PROBE_PYTHON_CALLS=0  do not time the Python calls that block (Python 3.12+: sys.monitoring
//                            on the calls that made blocking calls; see PythonSites::time_calls)
//   SYNCLINT_PROBE_TORCH_OPS=PATH  in a C++ LibTorch program, time each read operator (`.item()`, `if (t)`)
//                            on the host through LibTorch's RecordFunction hook, in traced stretches: the
//                            shim runtime_probe/torch_ops built against the program's own LibTorch
//   SYNCLINT_PROBE_DEBUG=1   counters on stderr at exit, each switch of sampled tracing as it happens, and
//                            the stack of a thread that faults (SIGSEGV, SIGBUS, SIGILL)
//   SYNCLINT_PROBE_LAUNCHES=0, SYNCLINT_PROBE_GPU_RECORD_KINDS=kernel,memcpy,memset,
//   SYNCLINT_PROBE_RUNTIME_RECORDS=1, SYNCLINT_PROBE_LATENCY=1 diagnostics of the probe's own cost
//                            (bench/gpu/overhead.sh); they blind the analysis
//   SYNCLINT_PROBE_GPU_RECORDS=first (the default)  GPU records in the first stretch only (switched on before
//                            the program's context exists), the GPU work of later stretches modelled from
//                            what it taught (GpuModel), each duration fitted to what the syncs show; the
//                            first stretch goes on until as many launches, copies and reads as before the
//                            last new one (and 1000) brought no new kind of work or read site, for at most
//                            SYNCLINT_PROBE_FIRST_MAX_MS (20000). With all traced (SYNCLINT_PROBE_SAMPLE=1,
//                            --trace, SYNCLINT_PROBE_RECORD) the default is `all`. `model`: no GPU records,
//                            the Activity API never switched on, every duration a guess until the syncs fit
//                            it: a GPU-bound step whose queue grows all step then looks idle in its first
//                            part, and its reads' savings come out several times too high (run 61 on the
//                            H200: +233%). `all`: records in every stretch; `none` (or `0`): none and
//                            nothing modelled (a diagnostic)
//   SYNCLINT_PROBE_SWITCH_AT_SYNC=1  a stretch's start and end switch the launch callbacks on and off on
//                            the program's thread, in the ENTER callback of its next sync or copy (where it
//                            is inside no launch), rather than on the window thread at any moment; after
//                            100 ms without one, the window thread does it. On by default with the GPU
//                            model: switched by the window thread, a LibTorch program's thread lost every
//                            later callback in 8 of 24 processes under load (none of 16 so)
//   SYNCLINT_PROBE_SWITCH_AT_LAUNCH  with SWITCH_AT_SYNC, on unless set to 0: a stretch's end is also taken by
//                            the return of the program's next outermost launch (its EXIT callback, where none
//                            of the launch's callbacks is left to come): a loop without syncs then has its
//                            launch callbacks switched off on its own thread, not by the window thread 100 ms
//                            on. Switched off by another thread while a thread launched, CUPTI's launch cost
//                            stayed higher afterwards: on the H200, launch-bound C++ batch 16 cost +7.0% a step
//                            with the window thread's switch-off and +1.6% with this one (run 59, one VM, 31
//                            rounds each, interleaved; +1.9% over 62 more rounds in run 60)
//   SYNCLINT_PROBE_RECORDS_OFF_AT_SWITCH  with SWITCH_AT_SYNC, on unless set to 0: where a sync or a launch's
//                            return switches a stretch's launch callbacks off on the program's thread, the
//                            GPU record kinds (GPU_RECORDS first or all) are switched off there too, right
//                            after, rather than by the window thread once it is done; the window thread
//                            still does it when it made the switch itself. On the H200, launch-bound C++
//                            batch 16 cost +1.2% a step with the first stretch's records switched off so,
//                            and +2.0% without any records (runs 62 and 65, one VM, 50 rounds each,
//                            interleaved), where the window thread's switch-off had cost 3 to 5 points more
//   SYNCLINT_PROBE_KEEP_CALLBACKS=1  a diagnostic: the launch callbacks are switched on once and never off;
//                            outside the stretches they return at once
//   SYNCLINT_PROBE_CALLBACK_NS  the host time each recorded call costs outside its own start and end
//                            (CUPTI's dispatch of its callbacks and the probe's code in them), which the
//                            replay takes out of the host's gaps so that it replays the program's pace
//                            (default 1500, measured on the H200; 0: the traced pace as recorded)
//   SYNCLINT_PROBE_KEEP_RECORDS=1  a diagnostic of the cost a stretch leaves after it: the GPU record kinds
//                            stay on from the start to the end, and records that start outside a traced
//                            stretch are dropped as CUPTI delivers them (the analysis sees the same records)
#include <cupti.h>
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <execinfo.h>
#include <fcntl.h>
#include <link.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "analysis/report_io.h"
#include "analysis/stream_io.h"
#include "analysis/trace.h"
#include "classify.h"
#include "cupti_loader.h"
#include "native_site.h"
#include "output.h"
#include "python_site.h"
#include "recorder.h"
#include "sampling.h"
#include "sched_delay.h"
#include "site_filter.h"

namespace synclint::probe::inject {
namespace {

constexpr std::size_t kActivityBufferBytes = 8u << 20;
// SYNCLINT_PROBE_CALLBACK_NS by default: what a recorded call costs the host outside its own start and end
// (CUPTI's dispatch of the ENTER and EXIT callbacks and the probe's code in them). Measured on the H200
// with CUDA 13.0: an empty kernel's launch took 1.3-2.0 us longer in the probe's first stretch than without
// the probe (bench/gpu/cupti_switch_cost.sh, run 56), CUPTI's dispatch alone 0.65 us of it; docs/probe.md,
// "The probe's own time in the replay".
constexpr std::uint64_t kCallbackOverheadNs = 1500;

// An environment switch: unset or empty gives `fallback`, "0" false, anything else true.
bool env_flag_default(const char* name, bool fallback) {
  const char* v = std::getenv(name);
  return v == nullptr || *v == '\0' ? fallback : std::strcmp(v, "0") != 0;
}

bool env_flag(const char* name) { return env_flag_default(name, false); }

std::uint64_t env_number(const char* name, std::uint64_t fallback) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return fallback;
  char* end = nullptr;
  unsigned long long n = std::strtoull(v, &end, 10);
  return (end != nullptr && *end == '\0' && n > 0) ? n : fallback;
}

struct Entry {
  bool on = false;
  bool windowed = false;  // enabled only in traced windows (launches, memsets, other non-blocking calls)
  ApiClass cls;
  std::uint32_t api = 0;
};

struct Probe {
  CuptiApi cupti;
  SiteFilters filters;
  std::unique_ptr<Recorder> rec;
  std::unique_ptr<PythonSites> python;
  std::unique_ptr<NativeSites> native;
  CUpti_SubscriberHandle subscriber = nullptr;
  std::vector<Entry> runtime, driver;
  RunInfo run;
  std::string status = "ok";
  bool debug = false;
  bool launch_callbacks = true;  // SYNCLINT_PROBE_LAUNCHES=0: only the sync-path callbacks (diagnostics)
  double sample = 1;         // SYNCLINT_PROBE_SAMPLE
  std::atomic<bool> traced{true};  // the current sampling window is traced
  std::chrono::milliseconds sample_on{1000};  // SYNCLINT_PROBE_SAMPLE_MS: each traced stretch
  std::chrono::milliseconds sample_first{1000};  // SYNCLINT_PROBE_FIRST_MS: the first one (default sample_on)
  bool activity_ok = false;
  std::vector<CUpti_ActivityKind> record_kinds;  // the Activity API kinds traced stretches switch on
  bool gpu_model = false;  // SYNCLINT_PROBE_GPU_RECORDS=first or model: the GPU work of stretches without records is modelled
  std::atomic<bool> records_live{true};  // with gpu_model: the first stretch's records are on (never with `model`)
  bool record_launch_keys = false;  // SYNCLINT_PROBE_RECORD: the recorded stream carries the launch keys
  KeySettling settling;  // with gpu_model and records_live: the first stretch lasts until the launches show no new key
  std::chrono::milliseconds first_max{20000};  // SYNCLINT_PROBE_FIRST_MAX_MS: but no longer than this
  bool keep_records = false;  // SYNCLINT_PROBE_KEEP_RECORDS: the kinds stay on; records outside stretches dropped
  TracedSpans spans;          // the stretches, for keep_records
  // SYNCLINT_PROBE_SWITCH_AT_SYNC: a stretch's start or end waits up to 100 ms for the program's next
  // sync-path call to switch the launch callbacks (switch_pending: -1 nothing, 0 off, 1 on); how often a sync
  // did it, and how often the window thread.
  bool switch_at_sync = false;
  std::atomic<int> switch_pending{-1};
  std::mutex switch_mu;
  std::condition_variable switch_cv;
  bool switch_done = false;
  std::atomic<std::uint64_t> switched_by_sync{0}, switched_by_window{0}, switched_by_sync_ns{0};
  // SYNCLINT_PROBE_SWITCH_AT_LAUNCH: a stretch's end is also taken by the EXIT of the program's next
  // outermost runtime launch (where none of its callbacks is left to come), so that a loop without syncs has
  // its callbacks switched off on its own thread and not by the window thread; how often.
  bool switch_at_launch = false;
  std::atomic<std::uint64_t> switched_by_launch{0};
  // SYNCLINT_PROBE_RECORDS_OFF_AT_SWITCH: a stretch's end that the program's thread switches also switches the
  // GPU record kinds off there (records_off_pending: set_traced asks it); how often it did.
  bool records_off_at_switch = false;
  std::atomic<bool> records_off_pending{false};
  std::atomic<std::uint64_t> records_off_by_program{0};
  // SYNCLINT_PROBE_KEEP_CALLBACKS: the launch callbacks stay on for the whole run, never switched; outside the
  // stretches they return at once (how many: untraced_windowed).
  bool keep_callbacks = false;
  std::atomic<std::uint64_t> untraced_windowed{0};

  using PointerAttr = CUresult (*)(void*, CUpointer_attribute, CUdeviceptr);
  PointerAttr pointer_attribute = nullptr;
  using DeviceName = CUresult (*)(char*, int, CUdevice);
  DeviceName device_name = nullptr;

  std::mutex name_mu;
  std::unordered_map<const char*, std::uint32_t> kernel_names;  // CUPTI's name pointer -> interned

  std::mutex window_mu;  // one window cut at a time
  std::mutex cupti_mu;  // CUPTI's switches and flushes, one thread at a time
  // SYNCLINT_PROBE_TORCH_OPS: the shim's switch, set once it is loaded (by the window thread).
  std::string torch_ops_path;
  void (*torch_ops_enable)(int) = nullptr;
  std::ofstream trace_out;
  std::unique_ptr<TraceWriter> trace;
  std::thread watcher;
  int wake[2] = {-1, -1};
  // The resolver thread symbolizes new native sites as they are captured (resolve_new_sites), apart from
  // the window thread, whose stretch switches a long first load of a module's debug information would delay.
  std::thread resolver;
  std::mutex resolver_mu;
  std::condition_variable resolver_cv;
  bool resolver_wanted = false, resolver_quit = false;
  std::atomic<bool> python_seen{false};
  std::atomic<bool> finished{false};
  std::atomic<int> pending_signal{0};
  std::atomic<std::uint64_t> site_ns{0}, site_count{0}, gpu_records{0}, exit_ns{0}, exit_count{0};
  std::atomic<std::uint64_t> queued_count{0}, queued_lag_ns{0};  // kernels with a queued timestamp (debug)
  std::atomic<std::uint64_t> descheduled_calls{0}, descheduled_ns{0};  // debug: blocking calls that waited for a CPU
  // Debug: where in the run the probe's occasional long tasks fall (their count, total time, and when the
  // last one ended): site captures over 100 us on the program's thread (a full unwind), and the window
  // cuts on the window thread (symbolizing the new sites, then the analysis).
  struct Tally {
    std::atomic<std::uint64_t> count{0}, ns{0}, last_end{0};
    void add(std::uint64_t start, std::uint64_t end) {
      count.fetch_add(1, std::memory_order_relaxed);
      ns.fetch_add(end > start ? end - start : 0, std::memory_order_relaxed);
      last_end.store(end, std::memory_order_relaxed);
    }
  } slow_captures, cuts, symbolizing;
  // The always-on (sync-path) callbacks (debug): ENTERs delivered and calls recorded, the last of each (ns).
  // With SYNCLINT_PROBE_GPU_RECORDS=first, CUPTI stopped calling back on a LibTorch program's thread after a
  // stretch's launch callbacks were switched off, in a few processes (docs/probe.md, "The fixed model on
  // the H200"): the last ENTER then comes right after the last "tracing off", long before the run's end.
  std::atomic<std::uint64_t> sync_path_enters{0}, sync_path_recorded{0}, last_sync_path_enter{0},
      last_sync_path_recorded{0};
  std::uint64_t start_ns = 0;
  // Debug: where the probed process's CPU time goes (the probe's start-up, its window thread, the rest).
  double cpu_before_ms = 0, startup_cpu_ms = 0, startup_wall_ms = 0;
  clockid_t init_thread_clock{};  // the CPU clock of the thread that initialized CUDA (the program's, mostly)
  bool init_thread_clock_ok = false;
  std::atomic<std::uint64_t> window_cpu_ns{0};
  struct sigaction old_int {}, old_term {};

  SiteRequests requests;  // sampling: recurring sites not traced yet ask for a traced stretch
};

Probe* g = nullptr;
std::atomic<bool> g_recording{false};
std::atomic<bool> g_forked{false};

// Bumped whenever the sampling switches callbacks on or off: a runtime call in flight then may miss its
// EXIT (or its ENTER), so a thread's nesting depth from before the switch is not trusted.
std::atomic<std::uint32_t> g_epoch{0};
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

std::uint64_t now_ns() {
  std::uint64_t t = 0;
  if (g != nullptr && g->cupti.get_timestamp != nullptr) g->cupti.get_timestamp(&t);
  return t;
}

// CPU time (user + system) of the whole process (RUSAGE_SELF) or of its reaped children (RUSAGE_CHILDREN).
double cpu_ms(int who) {
  rusage u{};
  getrusage(who, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) * 1e3 +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e3;
}
// A clock's time in ns (a thread's CPU clock), or nothing when it cannot be read (its thread has ended).
std::optional<std::uint64_t> clock_ns(clockid_t clock) {
  timespec t{};
  if (clock_gettime(clock, &t) != 0) return std::nullopt;
  return static_cast<std::uint64_t>(t.tv_sec) * 1'000'000'000u + static_cast<std::uint64_t>(t.tv_nsec);
}

// A time on the probe's clock in ms since the probe started (the debug lines' times).
double ms_since_start(std::uint64_t ns) { return ns > g->start_ns ? static_cast<double>(ns - g->start_ns) / 1e6 : 0.0; }

void wake_watcher(char c) {
  if (g != nullptr && g->wake[1] >= 0) {
    ssize_t r = write(g->wake[1], &c, 1);
    (void)r;
  }
}

// ---- site capture -------------------------------------------------------------------------------

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

void want_resolve() {
  Probe& p = *g;
  {
    std::lock_guard lock(p.resolver_mu);
    p.resolver_wanted = true;
  }
  p.resolver_cv.notify_one();
}

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

// What a call queued and on which stream, for the GPU model of stretches traced without GPU records
// (SYNCLINT_PROBE_GPU_RECORDS=first): the kernel function and grid of a launch, the executable graph of a
// graph launch, the kind and size of a copy, the size of a memset, hashed into HostCall::launch_key, and the same without the sizes into
// HostCall::launch_family; the stream handle it named. Calls it does not know keep 0: their GPU work is
// not modelled.
using synclint::probe::key_mix;

// A launch: the key of the function and its grid and block, the family of the function alone; and the
// grid's size, which recorded streams keep.
void launch_keys(RawCall& call, const void* func, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz) {
  std::uint64_t h = key_mix(0x4b, reinterpret_cast<std::uintptr_t>(func));
  call.launch_family = h | 1;  // never 0
  for (unsigned v : {gx, gy, gz, bx, by, bz}) h = key_mix(h, v);
  call.launch_key = h | 1;
  call.launch_blocks = std::uint64_t{gx} * gy * gz;  // at most 2^31 x 2^16 x 2^16: fits
  call.launch_block_threads = bx * by * bz;          // at most 1024 on every GPU; the product of what was passed
}

// A copy: the key of its kind and size, the family of its kind.
void copy_keys(RawCall& call, cudaMemcpyKind kind, std::size_t count) {
  call.launch_family = synclint::probe::copy_family(static_cast<std::uint64_t>(kind));
  call.launch_key = key_mix(call.launch_family, count) | 1;
}

// A CUDA graph's launch: the key of its executable graph; one family for all graphs (a graph never seen
// takes the durations of those seen).
void graph_keys(RawCall& call, const void* exec) {
  call.launch_family = key_mix(0x47, 0) | 1;
  call.launch_key = key_mix(0x47, reinterpret_cast<std::uintptr_t>(exec)) | 1;
}

// The per-thread default stream of a _ptsz call that named the default stream (cudaStreamPerThread).
std::uint64_t stream_of(const void* stream, bool per_thread) {
  return stream == nullptr && per_thread ? 2 : reinterpret_cast<std::uintptr_t>(stream);
}

void describe_work(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* params, RawCall& call) {
  if (params == nullptr) return;
  if (domain == CUPTI_CB_DOMAIN_DRIVER_API) {
    if (cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel || cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz) {
      const auto* p = static_cast<const cuLaunchKernel_params*>(params);
      launch_keys(call, p->f, p->gridDimX, p->gridDimY, p->gridDimZ, p->blockDimX, p->blockDimY, p->blockDimZ);
      call.stream_handle = stream_of(p->hStream, cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz);
    } else if (cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx || cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz) {
      const auto* p = static_cast<const cuLaunchKernelEx_params*>(params);
      if (p->config == nullptr) return;
      const CUlaunchConfig& c = *p->config;
      launch_keys(call, p->f, c.gridDimX, c.gridDimY, c.gridDimZ, c.blockDimX, c.blockDimY, c.blockDimZ);
      call.stream_handle = stream_of(c.hStream, cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz);
    } else if (cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch) {
      const auto* p = static_cast<const cuGraphLaunch_params*>(params);
      graph_keys(call, p->hGraph);
      call.stream_handle = stream_of(p->hStream, false);
    } else if (cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz) {
      const auto* p = static_cast<const cuGraphLaunch_ptsz_params*>(params);
      graph_keys(call, p->hGraphExec);
      call.stream_handle = stream_of(p->hStream, true);
    }
    return;
  }
  switch (cbid) {
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000:
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000: {
      const auto* p = static_cast<const cudaLaunchKernel_v7000_params*>(params);
      launch_keys(call, p->func, p->gridDim.x, p->gridDim.y, p->gridDim.z, p->blockDim.x, p->blockDim.y, p->blockDim.z);
      call.stream_handle = stream_of(p->stream, cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000);
      return;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060:
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060: {
      const auto* p = static_cast<const cudaLaunchKernelExC_v11060_params*>(params);
      if (p->config == nullptr) return;
      const cudaLaunchConfig_t& c = *p->config;
      launch_keys(call, p->func, c.gridDim.x, c.gridDim.y, c.gridDim.z, c.blockDim.x, c.blockDim.y, c.blockDim.z);
      call.stream_handle = stream_of(c.stream, cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060);
      return;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000:
    case CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_ptsz_v10000: {
      const auto* p = static_cast<const cudaGraphLaunch_v10000_params*>(params);  // the _ptsz form's alike
      graph_keys(call, p->graphExec);
      call.stream_handle = stream_of(p->stream, cbid == CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_ptsz_v10000);
      return;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_ptsz_v7000: {
      const auto* p = static_cast<const cudaMemcpyAsync_v3020_params*>(params);
      copy_keys(call, p->kind, p->count);
      call.stream_handle = stream_of(p->stream, cbid == CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_ptsz_v7000);
      return;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_ptds_v7000: {  // a blocking copy, on the default stream
      const auto* p = static_cast<const cudaMemcpy_v3020_params*>(params);
      copy_keys(call, p->kind, p->count);
      call.stream_handle = stream_of(nullptr, cbid == CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_ptds_v7000);
      return;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_ptsz_v7000: {
      const auto* p = static_cast<const cudaMemsetAsync_v3020_params*>(params);
      call.launch_family = 0x53;
      call.launch_key = key_mix(0x53, p->count) | 1;
      call.stream_handle = stream_of(p->stream, cbid == CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_ptsz_v7000);
      return;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_ptsz_v7000: {
      const auto* p = static_cast<const cudaStreamSynchronize_v3020_params*>(params);
      call.stream_handle = stream_of(p->stream, cbid == CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_ptsz_v7000);
      return;
    }
    default: return;
  }
}

// ---- CUPTI callbacks ----------------------------------------------------------------------------

void switch_callbacks(bool windowed, bool on);

// Switches every GPU record kind that traced stretches follow on or off.
void switch_record_kinds(Probe& p, bool on) {
  for (auto kind : p.record_kinds) {
    if (on) p.cupti.activity_enable(kind);
    else p.cupti.activity_disable(kind);
  }
}

// SYNCLINT_PROBE_SWITCH_AT_SYNC: the ENTER of a runtime sync or copy, on a thread inside no launch, switches
// the launch callbacks as the stretch's start or end that set_traced left pending asks (whichever thread
// takes it). With `at_launch` (SYNCLINT_PROBE_SWITCH_AT_LAUNCH), the EXIT of an outermost launch takes a
// pending switch-off only; its time counts with the syncs' (switched_by_sync_ns).
void switch_at_sync(Probe& p, bool at_launch = false) {
  int on = -1;
  if (at_launch) {  // a switch-off only: a launch's callbacks are off when a stretch is to start
    int off = 0;
    if (!p.switch_pending.compare_exchange_strong(off, -1, std::memory_order_acq_rel)) return;
    on = 0;
  } else {
    on = p.switch_pending.exchange(-1, std::memory_order_acq_rel);
  }
  if (on < 0) return;
  const auto t0 = std::chrono::steady_clock::now();
  switch_callbacks(true, on == 1);
  if (on == 0 && p.records_off_pending.exchange(false, std::memory_order_acq_rel)) {
    switch_record_kinds(p, false);
    p.records_off_by_program.fetch_add(1, std::memory_order_relaxed);
  }
  p.switched_by_sync_ns.fetch_add(static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                      std::chrono::steady_clock::now() - t0).count()),
                                  std::memory_order_relaxed);
  (at_launch ? p.switched_by_launch : p.switched_by_sync).fetch_add(1, std::memory_order_relaxed);
  {
    std::lock_guard lock(p.switch_mu);
    p.switch_done = true;
  }
  p.switch_cv.notify_all();
}

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
  // SYNCLINT_PROBE_KEEP_CALLBACKS: a launch outside the stretches keeps only the bookkeeping of nested calls
  // (as below), and its EXIT returns before the timestamp that the shared path takes first.
  if (e.windowed && p.keep_callbacks && !p.traced.load(std::memory_order_relaxed)) {
    const bool enter = cb->callbackSite == CUPTI_API_ENTER;
    if (runtime) {
      if (enter) {
        ++t_runtime_depth;
        t_runtime_correlation = cb->correlationId;
        if (cb->correlationData != nullptr) *cb->correlationData = 0;  // its EXIT, even if traced, drops it
        if (p.debug) p.untraced_windowed.fetch_add(1, std::memory_order_relaxed);
      } else if (t_runtime_depth > 0) {
        --t_runtime_depth;
      }
    } else if (enter && t_runtime_depth == 0 && cb->correlationData != nullptr) {
      *cb->correlationData = 0;
    }
    return;
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
    // SYNCLINT_PROBE_SWITCH_AT_LAUNCH: the end of a stretch, at the return of an outermost launch.
    if (p.switch_at_launch && e.windowed && t_runtime_depth == 0 && p.switch_pending.load(std::memory_order_relaxed) == 0)
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

void CUPTIAPI on_buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, kActivityBufferBytes));
  *size = *buffer != nullptr ? kActivityBufferBytes : 0;
  *max_records = 0;
}

std::uint32_t kernel_name(const char* name) {
  Probe& p = *g;
  std::lock_guard lock(p.name_mu);
  if (auto it = p.kernel_names.find(name); it != p.kernel_names.end()) return it->second;
  std::uint32_t id = p.rec->intern_name(demangle(name).c_str());
  p.kernel_names.emplace(name, id);
  return id;
}

const char* memcpy_name(std::uint8_t kind) {
  using synclint::probe::kCopyRecordNames;  // indexed by cudaMemcpyKind
  switch (kind) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD: return kCopyRecordNames[cudaMemcpyHostToDevice];
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH: return kCopyRecordNames[cudaMemcpyDeviceToHost];
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD: return kCopyRecordNames[cudaMemcpyDeviceToDevice];
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH: return kCopyRecordNames[cudaMemcpyHostToHost];
    case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP: return "memcpy PtoP";
    default: return "memcpy";
  }
}

void CUPTIAPI on_buffer_completed(CUcontext ctx, uint32_t stream_id, uint8_t* buffer, size_t, size_t valid) {
  if (g == nullptr || g_forked.load()) {
    std::free(buffer);
    return;
  }
  Probe& p = *g;
  std::vector<RawGpu> out;
  CUpti_Activity* record = nullptr;
  while (valid > 0 && p.cupti.activity_get_next_record(buffer, valid, &record) == CUPTI_SUCCESS) {
    RawGpu r;
    switch (record->kind) {
      case CUPTI_ACTIVITY_KIND_KERNEL:
      case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
        const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
        r = {k->start, k->end, k->correlationId, k->deviceId, k->streamId, kernel_name(k->name),
             GpuActivityKind::Kernel, false};
        if (p.debug && k->queued != 0 && k->queued != CUPTI_TIMESTAMP_UNKNOWN && k->start >= k->queued) {
          ++p.queued_count;
          p.queued_lag_ns += k->start - k->queued;
        }
        break;
      }
      case CUPTI_ACTIVITY_KIND_MEMCPY: {
        const auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(record);
        std::uint64_t corr = m->runtimeCorrelationId != 0 ? m->runtimeCorrelationId : m->correlationId;
        r = {m->start, m->end, corr, m->deviceId, m->streamId, p.rec->intern_name(memcpy_name(m->copyKind)),
             GpuActivityKind::Memcpy, false};
        break;
      }
      case CUPTI_ACTIVITY_KIND_MEMSET: {
        const auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(record);
        r = {m->start, m->end, m->correlationId, m->deviceId, m->streamId, p.rec->intern_name("memset"),
             GpuActivityKind::Memset, true};
        break;
      }
      default:
        continue;
    }
    if (r.end >= r.start && r.start != 0) out.push_back(r);
  }
  if (p.keep_records) {  // the kinds were never switched off: only what a stretch would have recorded
    std::vector<RawGpu> kept;
    kept.reserve(out.size());
    p.spans.filter(out.begin(), out.end(), [](const RawGpu& r) { return r.start; }, std::back_inserter(kept));
    out.swap(kept);
  }
  p.rec->add_gpu(out.data(), out.size());
  p.gpu_records += out.size();
  size_t dropped = 0;
  if (p.cupti.activity_get_num_dropped_records(ctx, stream_id, &dropped) == CUPTI_SUCCESS && dropped > 0)
    p.rec->add_dropped(dropped);
  std::free(buffer);
}

// ---- windows and output -------------------------------------------------------------------------

void fill_gpu_name(const EventStream& w) {
  Probe& p = *g;
  if (!p.run.gpu_name.empty() || p.device_name == nullptr || w.gpu.empty()) return;
  char name[256] = {};
  if (p.device_name(name, sizeof name - 1, static_cast<CUdevice>(w.gpu.front().device)) == CUDA_SUCCESS)
    p.run.gpu_name = name;
}

// Flushes the activity buffers and hands everything up to a safe cut (all of it when final) to the
// accumulator. Called by the window thread and, at the end, by the exit path.
// Mid-run, the default flush only (see SampleSchedule): a forced one is for the end of the session.
void cut_window(bool final) {
  Probe& p = *g;
  std::lock_guard lock(p.window_mu);
  {
    std::lock_guard cupti(p.cupti_mu);
    p.cupti.activity_flush_all(final ? CUPTI_ACTIVITY_FLAG_FLUSH_FORCED : 0);
  }
  const std::uint64_t began = now_ns();
  std::uint64_t cut = final ? UINT64_MAX : p.rec->safe_cut(began);
  EventStream w = p.rec->take_window(cut, final);
  const std::uint64_t symbolize = now_ns();
  p.native->resolve();  // placeholders of this window get their file:line before the analysis
  const std::uint64_t symbolized = now_ns();
  if (p.debug) p.symbolizing.add(symbolize, symbolized);
  if (!final) p.native->stop_idle_symbolizer(std::chrono::steady_clock::now());
  w.sites = p.rec->sites().snapshot();
  fill_gpu_name(w);
  if (p.trace) p.trace->add(w);
  p.rec->consume(std::move(w));
  if (p.debug) {
    const std::uint64_t done = now_ns();
    p.cuts.add(began, done);
    std::fprintf(stderr, "synclint probe: window cut of %.1f ms (symbolizing %.1f ms) ending at %.1f ms\n",
                 static_cast<double>(done - began) / 1e6, static_cast<double>(symbolized - symbolize) / 1e6,
                 ms_since_start(done));
  }
}

// New native sites, symbolized as soon as they are captured (capture_site wakes the resolver thread): a
// module's first batch starts its symbolizer and loads its debug information (0.1 s for the C++
// benchmark), which then falls in the program's start-up, where its first syncs are, rather than in the
// steps during which the next cut comes.
void resolve_new_sites() {
  Probe& p = *g;
  const std::uint64_t began = now_ns();
  p.native->resolve();
  if (p.debug) {
    const std::uint64_t done = now_ns();
    p.symbolizing.add(began, done);
    std::fprintf(stderr, "synclint probe: symbolizing new sites of %.1f ms ending at %.1f ms\n",
                 static_cast<double>(done - began) / 1e6, ms_since_start(done));
  }
}

void report_error(const std::string& what) { std::fprintf(stderr, "synclint probe: %s\n", what.c_str()); }

void write_outputs() {
  Probe& p = *g;
  RunInfo run = p.run;
  run.status = p.status;
  ProbeReport report = p.rec != nullptr ? p.rec->finish(run) : ProbeReport{};
  if (p.rec == nullptr) report.run = run;
  std::string error;
  auto report_path = output_file("report", p.run.pid, p.run.rank);
  try {
    if (!write_file_atomic(report_path, report_to_json(report), error)) report_error(error);
  } catch (const std::exception& ex) {
    report_error(std::string("cannot write the report: ") + ex.what());
  }
  if (p.rec != nullptr && p.rec->options().record_max_calls > 0) {
    bool truncated = false;
    EventStream s = p.rec->recorded(truncated);
    try {
      if (!write_file_atomic(output_file("stream", p.run.pid, p.run.rank), stream_to_json(s), error))
        report_error(error);
    } catch (const std::exception& ex) {
      report_error(std::string("cannot write the stream: ") + ex.what());
    }
  }
  if (p.trace) {
    p.trace->finish();
    p.trace_out.close();
  }
  if (p.debug && p.gpu_model)
    std::fprintf(stderr, "synclint probe: modelled GPU activities %llu (%llu without a learned duration)\n",
                 static_cast<unsigned long long>(report.modelled_gpu_activities),
                 static_cast<unsigned long long>(report.modelled_without_duration));
  if (p.debug && p.gpu_model && p.rec != nullptr)
    std::fprintf(stderr, "synclint probe: %s\n", p.rec->model_summary().c_str());
  if (p.debug) {
    std::fprintf(stderr,
                 "synclint probe: sync-path callbacks: %llu entered (the last at %.1f ms), %llu recorded (the last at %.1f ms)\n",
                 static_cast<unsigned long long>(p.sync_path_enters.load()), ms_since_start(p.last_sync_path_enter.load()),
                 static_cast<unsigned long long>(p.sync_path_recorded.load()), ms_since_start(p.last_sync_path_recorded.load()));
    auto tally = [&](const char* what, const Probe::Tally& t) {
      std::fprintf(stderr, "synclint probe: %s %llu, %.1f ms in all, the last ending at %.1f ms\n", what,
                   static_cast<unsigned long long>(t.count.load()), static_cast<double>(t.ns.load()) / 1e6,
                   ms_since_start(t.last_end.load()));
    };
    tally("site captures over 100 us (on the program's thread):", p.slow_captures);
    tally("window cuts (on the window thread: symbolizing and the analysis):", p.cuts);
    tally("symbolizing new sites (as they come, on the resolver thread, and in the cuts):", p.symbolizing);
    if (p.native)
      std::fprintf(stderr, "synclint probe: symbolizer tool processes started: %zu\n", p.native->symbolizer().tools_started());
    // The window thread's CPU as of its last wake-up (the final cut may run on the exiting thread); the
    // reaped children include the symbolizer tools, ended before this line.
    char init_thread_ms[32] = "?";  // "?" once that thread has ended
    if (const auto ns = p.init_thread_clock_ok ? clock_ns(p.init_thread_clock) : std::nullopt)
      std::snprintf(init_thread_ms, sizeof init_thread_ms, "%.1f", static_cast<double>(*ns) / 1e6);
    std::fprintf(stderr,
                 "synclint probe: CPU time: process %.1f ms (%.1f ms before the probe started, %.1f ms in its "
                 "start-up of %.1f ms), the thread that started it %s ms, window thread %.1f ms, reaped children "
                 "%.1f ms\n",
                 cpu_ms(RUSAGE_SELF), p.cpu_before_ms, p.startup_cpu_ms, p.startup_wall_ms,
                 init_thread_ms,
                 static_cast<double>(p.window_cpu_ns.load()) / 1e6, cpu_ms(RUSAGE_CHILDREN));
    std::fprintf(stderr, "synclint probe: blocking calls descheduled inside %llu times, %.1f ms in all%s\n",
                 static_cast<unsigned long long>(p.descheduled_calls.load()),
                 static_cast<double>(p.descheduled_ns.load()) / 1e6,
                 run_delay_unavailable() ? " (no /proc/thread-self/schedstat: not measured)" : "");
  }
  if (p.debug && p.switch_at_sync)
    std::fprintf(stderr, "synclint probe: launch callbacks switched by a sync %llu times, by the window thread %llu times; "
                 "the syncs' switches took %.1f us in all\n",
                 static_cast<unsigned long long>(p.switched_by_sync.load()),
                 static_cast<unsigned long long>(p.switched_by_window.load()),
                 static_cast<double>(p.switched_by_sync_ns.load()) / 1e3);
  if (p.debug && p.switch_at_launch)
    std::fprintf(stderr, "synclint probe: launch callbacks switched off at a launch's return %llu times\n",
                 static_cast<unsigned long long>(p.switched_by_launch.load()));
  if (p.debug && p.records_off_at_switch)
    std::fprintf(stderr, "synclint probe: GPU records switched off on the program's thread %llu times\n",
                 static_cast<unsigned long long>(p.records_off_by_program.load()));
  if (p.debug && p.keep_callbacks)
    std::fprintf(stderr, "synclint probe: launch callbacks kept on; %llu launches outside the stretches returned at once\n",
                 static_cast<unsigned long long>(p.untraced_windowed.load()));
  if (p.debug && p.queued_count.load() > 0)
    std::fprintf(stderr, "synclint probe: %llu kernels with a queued timestamp, queued to start %.2f us on average\n",
                 static_cast<unsigned long long>(p.queued_count.load()),
                 static_cast<double>(p.queued_lag_ns.load()) / 1e3 / static_cast<double>(p.queued_count.load()));
  if (p.debug) {
    std::fprintf(stderr,
                 "synclint probe: pid %lld status '%s' host calls %llu gpu records %llu windows %llu sites %zu "
                 "site captures %llu (%.2f us each) exit callbacks %llu (%.2f us each) native walks %llu fast %llu full (%s) "
                 "symbolizer %s report %s\n",
                 static_cast<long long>(p.run.pid), p.status.c_str(),
                 static_cast<unsigned long long>(p.rec ? p.rec->host_calls_seen() : 0),
                 static_cast<unsigned long long>(p.gpu_records.load()),
                 static_cast<unsigned long long>(p.rec ? p.rec->windows() : 0), report.sites.size(),
                 static_cast<unsigned long long>(p.site_count.load()),
                 p.site_count.load() ? static_cast<double>(p.site_ns.load()) / 1e3 / static_cast<double>(p.site_count.load()) : 0.0,
                 static_cast<unsigned long long>(p.exit_count.load()),
                 p.exit_count.load() ? static_cast<double>(p.exit_ns.load()) / 1e3 / static_cast<double>(p.exit_count.load()) : 0.0,
                 static_cast<unsigned long long>(p.native ? p.native->fast_walks() : 0),
                 static_cast<unsigned long long>(p.native ? p.native->full_walks() : 0),
                 p.native ? p.native->fallback_summary().c_str() : "-",
                 p.native ? (p.native->symbolizer().tool_path().empty() ? "none (dladdr)"
                                                                         : p.native->symbolizer().tool_path().c_str())
                          : "-",
                 report_path.c_str());
  }
}

// The last window and every output file, once (exit, context teardown, or a terminating signal).
void finish_once() {
  if (g == nullptr || g_forked.load() || g->finished.exchange(true)) return;
  if (g->rec != nullptr && g_recording.load()) {
    cut_window(true);
    g_recording.store(false);
  }
  if (g->native) g->native->stop_symbolizer();  // the last cut has symbolized every site
  write_outputs();
}

void set_traced(bool on);

// Milliseconds from now until `deadline` (steady clock), at least 1.
int ms_until(std::chrono::steady_clock::time_point deadline) {
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
  return static_cast<int>(std::clamp<long long>(ms, 1, 1 << 30));
}

// The window thread: cuts a window every SYNCLINT_PROBE_WINDOW_MS (or when a thread's buffer is full), and
// with sampling switches tracing on for a traced stretch, then off for the rest of each period.
// SYNCLINT_PROBE_TORCH_OPS: loads the shim into a C++ LibTorch program, on the window thread (LibTorch
// takes its callback lock; not inside the CUDA call that started the probe). In a Python program the Python
// call around each read is timed already; in a program without LibTorch there is nothing to hook.
bool libtorch_loaded() {
  return dl_iterate_phdr([](dl_phdr_info* info, std::size_t, void*) {
           return info->dlpi_name != nullptr && std::strstr(info->dlpi_name, "libtorch_cpu.so") != nullptr ? 1 : 0;
         }, nullptr) != 0;
}

void load_torch_ops() {
  Probe& p = *g;
  if (p.torch_ops_path.empty()) return;
  const std::string what = "SYNCLINT_PROBE_TORCH_OPS=" + p.torch_ops_path + ": ";
  using IsInitialized = int (*)();
  if (auto py = reinterpret_cast<IsInitialized>(dlsym(RTLD_DEFAULT, "Py_IsInitialized")); py != nullptr && py() != 0) {
    if (p.debug) report_error(what + "not loaded in a Python program (its Python calls are timed)");
    return;
  }
  if (!libtorch_loaded()) {
    report_error(what + "not loaded: the program has no LibTorch (libtorch_cpu.so)");
    return;
  }
  void* shim = dlopen(p.torch_ops_path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (shim == nullptr) {
    const char* why = dlerror();
    report_error(what + "cannot open it: " + (why != nullptr ? why : "?"));
    return;
  }
  using Start = int (*)(std::uint64_t (*)(), void (*)(std::uint64_t, std::uint64_t));
  auto start = reinterpret_cast<Start>(dlsym(shim, "synclint_torch_ops_start"));
  auto enable = reinterpret_cast<void (*)(int)>(dlsym(shim, "synclint_torch_ops_enable"));
  if (start == nullptr || enable == nullptr) {
    report_error(what + "not a synclint torch_ops shim");
    return;
  }
  if (start(now_ns, on_torch_read) != 1) {
    report_error(what + "LibTorch refused its RecordFunction hook");
    return;
  }
  std::lock_guard lock(p.cupti_mu);  // set_traced switches it from now on
  p.torch_ops_enable = enable;
  enable(p.traced.load() ? 1 : 0);
}

void watcher_main() {
  using clock = std::chrono::steady_clock;
  Probe& p = *g;
  load_torch_ops();
  const auto window = std::chrono::milliseconds(p.rec->options().window_ns / 1'000'000);
  auto next_cut = clock::now() + window;
  const auto started = clock::now();
  SampleSchedule schedule(p.sample, p.sample_on, started, p.sample_first);
  constexpr std::chrono::milliseconds kFirstExtension{100};
  bool first_extended = false;
  for (;;) {
    if (p.debug) p.window_cpu_ns.store(clock_ns(CLOCK_THREAD_CPUTIME_ID).value_or(0), std::memory_order_relaxed);
    pollfd pfd{p.wake[0], POLLIN, 0};
    int r = poll(&pfd, 1, ms_until(std::min({next_cut, schedule.next_change(), schedule.flush_due()})));
    char c = 'T';
    if (r > 0 && read(p.wake[0], &c, 1) != 1) c = 'T';
    if (r < 0) continue;
    if (c == 'Q') return;
    if (c == 'S') {
      int sig = p.pending_signal.load();
      finish_once();
      sigaction(sig, sig == SIGINT ? &p.old_int : &p.old_term, nullptr);
      kill(getpid(), sig);
      return;
    }
    const auto now = clock::now();
    if (p.finished.load()) {  // the report is written: wait for 'Q' without cutting or toggling
      next_cut = now + window;
      schedule.stop();
      continue;
    }
    const double at_ms = std::chrono::duration<double, std::milli>(now - started).count();
    // SYNCLINT_PROBE_GPU_RECORDS=first: the first stretch, the only one with GPU records, goes on while the
    // program keeps queuing work it has not queued before (up to SYNCLINT_PROBE_FIRST_MAX_MS).
    if (p.gpu_model && p.records_live.load() && schedule.traced() && now >= schedule.next_change() &&
        !p.settling.settled() && now - started < p.first_max) {
      if (p.debug && !first_extended)
        std::fprintf(stderr, "synclint probe: first stretch extended at %.1f ms: %llu kinds of GPU work so far, the last new one %llu calls ago\n",
                     at_ms, static_cast<unsigned long long>(p.settling.keys()),
                     static_cast<unsigned long long>(p.settling.since_new()));
      first_extended = true;
      schedule.extend(now + kFirstExtension);
    }
    if (std::optional<bool> on = schedule.update(now, c == 'N')) {
      // A stretch's records are flushed before the next stretch begins (SampleSchedule keeps them apart).
      if (*on && schedule.take_flush(clock::time_point::max())) cut_window(false);
      // Each call carries whether it was recorded while traced, so the cut can be anywhere.
      set_traced(*on);
      if (p.debug)  // a crash leaves no report: the switches before it are on stderr
        std::fprintf(stderr, "synclint probe: tracing %s at %.1f ms%s\n", *on ? "on" : "off", at_ms,
                     c == 'N' ? " (request)" : "");
    }
    // The records of a stretch that ended kFlushDelay ago sit in a buffer that is not full; now that the
    // kernels launched in the stretch have had time to finish, the default flush delivers it.
    const bool flush = schedule.take_flush(now);
    if (flush && p.debug) std::fprintf(stderr, "synclint probe: flush of the stretch at %.1f ms\n", at_ms);
    if (c == 'F' || flush || now >= next_cut) {
      cut_window(false);
      next_cut = now + window;
    }
  }
}

void resolver_main() {
  Probe& p = *g;
  for (;;) {
    std::unique_lock lock(p.resolver_mu);
    p.resolver_cv.wait(lock, [&p] { return p.resolver_wanted || p.resolver_quit; });
    if (p.resolver_quit) return;
    p.resolver_wanted = false;
    lock.unlock();
    if (!p.finished.load()) resolve_new_sites();
  }
}

void on_exit_handler() {
  if (g == nullptr || g_forked.load()) return;
  if (g->resolver.joinable()) {  // the final cut resolves what is left
    {
      std::lock_guard lock(g->resolver_mu);
      g->resolver_quit = true;
    }
    g->resolver_cv.notify_one();
    g->resolver.join();
  }
  if (g->watcher.joinable()) {
    wake_watcher('Q');
    g->watcher.join();
  }
  finish_once();
}

void on_signal(int sig, siginfo_t* info, void* uctx) {
  if (g == nullptr) return;
  const struct sigaction& old = sig == SIGINT ? g->old_int : g->old_term;
  if ((old.sa_flags & SA_SIGINFO) != 0 && old.sa_sigaction != nullptr) {
    old.sa_sigaction(sig, info, uctx);  // the program's own handler (Python's KeyboardInterrupt, ...)
    return;
  }
  if (old.sa_handler == SIG_IGN) return;
  if (old.sa_handler != SIG_DFL) {
    old.sa_handler(sig);
    return;
  }
  // Default action (terminate): the window thread writes the report, then re-raises with the default.
  if (g->pending_signal.exchange(sig) != 0 || g_forked.load() || g->finished.load()) {
    sigaction(sig, &old, nullptr);
    raise(sig);
    return;
  }
  wake_watcher('S');
}

void install_signal_handlers() {
  struct sigaction sa {};
  sa.sa_sigaction = on_signal;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, &g->old_int);
  sigaction(SIGTERM, &sa, &g->old_term);
}

// SYNCLINT_PROBE_DEBUG: a fault prints the faulting thread's stack (module+offset; addr2line or gdb turn
// those into lines) before the default action, since a crash leaves no report to tell where it happened.
struct sigaction g_old_fault[3];
constexpr int kFaultSignals[3] = {SIGSEGV, SIGBUS, SIGILL};

void on_fault(int sig, siginfo_t* info, void*) {
  char head[160];
  int n = std::snprintf(head, sizeof head, "synclint probe: signal %d at address %p in thread %ld; stack:\n", sig,
                        info != nullptr ? info->si_addr : nullptr, static_cast<long>(gettid()));
  if (n > 0) (void)!write(2, head, static_cast<std::size_t>(std::min<int>(n, sizeof head - 1)));
  void* frames[64];
  backtrace_symbols_fd(frames, backtrace(frames, 64), 2);
  for (int i = 0; i < 3; ++i)
    if (kFaultSignals[i] == sig) sigaction(sig, &g_old_fault[i], nullptr);
  raise(sig);  // pending until the handler returns, then the program's own handling (default: core dump)
}

void install_fault_handlers() {
  void* warm[1];
  backtrace(warm, 1);  // loads libgcc's unwinder now, not inside the handler
  struct sigaction sa {};
  sa.sa_sigaction = on_fault;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  for (int i = 0; i < 3; ++i) sigaction(kFaultSignals[i], &sa, &g_old_fault[i]);
}

void on_fork_child() {
  // The child has no window thread and cannot use CUDA (it was initialized in the parent): it records
  // nothing and writes nothing. A worker started with spawn loads the probe afresh and reports itself.
  g_forked.store(true);
  g_recording.store(false);
}

// A report that says why there is no data, written at once so it exists however the process ends.
void unavailable(const std::string& why) {
  g->status = "cupti-unavailable: " + why;
  report_error(g->status + "; the program runs unmeasured");
  write_outputs();
}

// Enables the callbacks the analysis needs. Driver calls made by a runtime call are not recorded (the
// runtime call is), so in the driver domain only what the runtime domain cannot see is enabled: direct
// launches (Triton, custom code) and memsets (their GPU records carry the driver call's correlation id);
// driver syncs and copies only with SYNCLINT_PROBE_DRIVER=all. Non-blocking calls are `windowed`: on only
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
    if (windowed && !p.launch_callbacks) continue;
    const bool on_now = !windowed || p.traced;
    if (on_now && p.cupti.enable_callback(1, p.subscriber, domain, cbid) != CUPTI_SUCCESS) continue;
    table[cbid] = {true, windowed, *cls, p.rec->add_api(n)};
  }
}

// SYNCLINT_PROBE_GPU_RECORDS: in which stretches the Activity API's records are on.
enum class GpuRecords {
  First,  // the default: the first stretch only; the later stretches' GPU work is modelled from what it taught
  Model,  // none, every stretch modelled, durations from the syncs alone (GpuModel; docs/probe.md)
  All,    // every stretch: each switch on mid-run leaves a cost on the H200 (docs/probe.md, runs 18-24)
  None,   // none (a diagnostic of the probe's own cost: the analysis sees no GPU work)
};

GpuRecords gpu_records_from(const char* v) {
  if (v == nullptr || *v == '\0' || std::strcmp(v, "first") == 0) return GpuRecords::First;
  if (std::strcmp(v, "model") == 0) return GpuRecords::Model;
  if (std::strcmp(v, "all") == 0 || std::strcmp(v, "1") == 0) return GpuRecords::All;
  if (std::strcmp(v, "0") == 0 || std::strcmp(v, "none") == 0) return GpuRecords::None;
  report_error(std::string("SYNCLINT_PROBE_GPU_RECORDS=") + v + " is not model, first, all or none; using first");
  return GpuRecords::First;
}

// The setting's name in the report (RunInfo::gpu_records).
const char* gpu_records_name(GpuRecords g) {
  switch (g) {
    case GpuRecords::First: return "first";
    case GpuRecords::All: return "all";
    case GpuRecords::Model: return "model";
    case GpuRecords::None: return "none";
  }
  return "";
}

constexpr std::pair<std::string_view, CUpti_ActivityKind> kActivityKinds[] = {
    {"kernel", CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL},
    {"memcpy", CUPTI_ACTIVITY_KIND_MEMCPY},
    {"memset", CUPTI_ACTIVITY_KIND_MEMSET}};

// SYNCLINT_PROBE_GPU_RECORD_KINDS=kernel,memcpy,memset (a diagnostic): which of the Activity API's kinds to
// record. Unset or empty: all three; an unknown name is reported and the default kept.
std::vector<CUpti_ActivityKind> record_kinds_from(const char* list) {
  std::vector<CUpti_ActivityKind> all, picked;
  for (const auto& [name, kind] : kActivityKinds) all.push_back(kind);
  if (list == nullptr || *list == '\0') return all;
  std::string_view rest(list);
  while (!rest.empty()) {
    const std::string_view name = rest.substr(0, rest.find(','));
    rest.remove_prefix(std::min(rest.size(), name.size() + 1));
    const auto* it = std::find_if(std::begin(kActivityKinds), std::end(kActivityKinds),
                                  [&](const auto& k) { return k.first == name; });
    if (it == std::end(kActivityKinds)) {
      report_error("SYNCLINT_PROBE_GPU_RECORD_KINDS: unknown kind '" + std::string(name) +
                   "' (kernel, memcpy, memset); recording all");
      return all;
    }
    if (std::find(picked.begin(), picked.end(), it->second) == picked.end()) picked.push_back(it->second);
  }
  return picked;
}

// Turns on or off the callbacks of the tables' entries that are traced-only (`windowed`) or always on.
void switch_callbacks(bool windowed, bool on) {
  Probe& p = *g;
  for (auto [domain, table] : {std::pair{CUPTI_CB_DOMAIN_RUNTIME_API, &p.runtime}, std::pair{CUPTI_CB_DOMAIN_DRIVER_API, &p.driver}})
    for (std::uint32_t cbid = 0; cbid < table->size(); ++cbid)
      if ((*table)[cbid].on && (*table)[cbid].windowed == windowed)
        p.cupti.enable_callback(on ? 1 : 0, p.subscriber, domain, cbid);
}

// The rest of attaching, once the tables are built: context teardown callback, activity buffers.
std::string attach_activity() {
  Probe& p = *g;
  p.cupti.enable_callback(1, p.subscriber, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING);
  // One activity buffer queue for all threads, as before CUPTI 13: with its per-thread buffers (13's
  // default), CUPTI crashed a LibTorch program on the H200 in 9 of 53 processes, in its own thread, while
  // delivering the records of a stretch switched on mid-run; with one queue, in none of 22 (docs/probe.md,
  // "A crash in CUPTI"). The attribute is set before the buffer callbacks are registered, as CUPTI requires.
  CUptiResult r;
  if (!env_flag_default("SYNCLINT_PROBE_PER_THREAD_BUFFERS", false) && p.cupti.activity_set_attribute != nullptr) {
    std::uint8_t per_thread = 0;
    std::size_t size = sizeof per_thread;
    // A CUPTI before 12.3 has no such attribute (nor per-thread buffers): said in debug mode only.
    if ((r = p.cupti.activity_set_attribute(CUPTI_ACTIVITY_ATTR_PER_THREAD_ACTIVITY_BUFFER, &size, &per_thread)) != CUPTI_SUCCESS && p.debug)
      report_error("per-thread activity buffers not turned off: " + p.cupti.describe(r));
  }
  if ((r = p.cupti.activity_register_callbacks(on_buffer_requested, on_buffer_completed)) != CUPTI_SUCCESS)
    return "activity buffers: " + p.cupti.describe(r);
  return {};
}

// Turns the launch callbacks and the GPU activity records on or off at a sampling window boundary.
void set_traced(bool on) {
  Probe& p = *g;
  if (p.traced.load() == on) return;
  std::lock_guard lock(p.cupti_mu);
  if (!on) p.traced.store(false);  // calls from now on are counted, not analysed
  g_epoch.fetch_add(1, std::memory_order_relaxed);
  const bool records_follow = p.activity_ok && !p.keep_records;  // the record kinds follow the stretches
  // SYNCLINT_PROBE_RECORDS_OFF_AT_SWITCH: the record kinds go off with the callbacks where the program's thread
  // switches them; left pending when the window thread does (below, then, as without it).
  const bool records_to_program = !on && records_follow && p.records_off_at_switch;
  if (records_to_program) p.records_off_pending.store(true, std::memory_order_release);
  if (p.keep_callbacks) {
    // They stay on: the callbacks read p.traced.
  } else if (p.switch_at_sync) {
    // The program's next sync or copy switches them; without one in 100 ms, this thread does.
    {
      std::lock_guard done(p.switch_mu);
      p.switch_done = false;
    }
    p.switch_pending.store(on ? 1 : 0, std::memory_order_release);
    std::unique_lock done(p.switch_mu);
    if (!p.switch_cv.wait_for(done, std::chrono::milliseconds(100), [&] { return p.switch_done; }) &&
        p.switch_pending.exchange(-1, std::memory_order_acq_rel) >= 0) {
      switch_callbacks(true, on);
      p.switched_by_window.fetch_add(1, std::memory_order_relaxed);
    } else {
      p.switch_cv.wait(done, [&] { return p.switch_done; });  // taken by a sync: until it is done
    }
  } else {
    switch_callbacks(true, on);
  }
  if (p.torch_ops_enable != nullptr) p.torch_ops_enable(on ? 1 : 0);
  // Still this thread's to switch: not handed to the program's thread, or handed and not taken there.
  const bool records_here = !records_to_program || p.records_off_pending.exchange(false, std::memory_order_acq_rel);
  if (records_follow && records_here) switch_record_kinds(p, on);
  if (!on && p.gpu_model && p.records_live.load()) {  // never on again mid-run: later stretches are modelled
    p.activity_ok = false;
    p.records_live.store(false);
    if (p.debug)
      std::fprintf(stderr, "synclint probe: GPU records end: %llu kinds of GPU work in %llu launches and copies, the last new one %llu ago\n",
                   static_cast<unsigned long long>(p.settling.keys()), static_cast<unsigned long long>(p.settling.calls()),
                   static_cast<unsigned long long>(p.settling.since_new()));
  }
  const std::uint64_t at = now_ns();
  p.spans.switched(on, at);
  p.rec->tracing_switched(on, at);
  if (!on) return;
  p.traced.store(true);  // launches and GPU records are on again: calls are analysed
  p.requests.stretch_began();
}

int initialize() {
  const auto init_began = std::chrono::steady_clock::now();  // now_ns() reads CUPTI's clock, not loaded yet
  const double cpu_before = cpu_ms(RUSAGE_SELF);
  g = new Probe;
  Probe& p = *g;
  p.debug = env_flag("SYNCLINT_PROBE_DEBUG");
  p.cpu_before_ms = cpu_before;
  p.init_thread_clock_ok = pthread_getcpuclockid(pthread_self(), &p.init_thread_clock) == 0;
  p.run = collect_run_info();
  std::string error;
  if (!load_cupti(p.cupti, error)) {
    unavailable(error);
    std::atexit(on_exit_handler);
    return 1;
  }
  RecorderOptions opt;
  opt.window_ns = env_number("SYNCLINT_PROBE_WINDOW_MS", 2000) * 1'000'000;
  opt.window_calls = env_number("SYNCLINT_PROBE_WINDOW_CALLS", 200000);
  if (env_flag("SYNCLINT_PROBE_RECORD") || env_flag("SYNCLINT_PROBE_STREAM"))
    opt.record_max_calls = env_number("SYNCLINT_PROBE_RECORD_MAX", 20000);
  // Sampled by default: the kernel records and launch callbacks cost about 1-2 us per launch on the H200,
  // a third of the step time of a launch-bound Python loop, and periodic short stretches (100 ms in 2 s)
  // still cost a launch-bound Python loop +7% where one long stretch at the start cost nothing measurable
  // (docs/probe.md, "The probe's own cost").
  p.sample = 0.01;
  if (const char* v = std::getenv("SYNCLINT_PROBE_SAMPLE"); v != nullptr && *v != '\0') {
    char* end = nullptr;
    double f = std::strtod(v, &end);
    if (end != nullptr && *end == '\0' && f > 0 && f <= 1) p.sample = f;
    else report_error(std::string("SYNCLINT_PROBE_SAMPLE=") + v + " is not a fraction in (0, 1]; using 0.01");
  }
  p.sample_on = std::chrono::milliseconds(env_number("SYNCLINT_PROBE_SAMPLE_MS", 1000));
  p.sample_first = std::chrono::milliseconds(
      env_number("SYNCLINT_PROBE_FIRST_MS", static_cast<std::uint64_t>(p.sample_on.count())));
  p.requests.set_past_start(env_flag_default("SYNCLINT_PROBE_REQUEST_PAST_START", true));
  // A trace or a recorded stream needs every event.
  if (env_flag("SYNCLINT_PROBE_TRACE") || opt.record_max_calls > 0) p.sample = 1;
  GpuRecords gpu_records = gpu_records_from(std::getenv("SYNCLINT_PROBE_GPU_RECORDS"));
  // Everything traced (--trace, SYNCLINT_PROBE_SAMPLE=1, a recorded stream): the first stretch never ends,
  // so its records stay on and there is nothing to model, unless `model` was asked for.
  if (p.sample >= 1 && gpu_records == GpuRecords::First) gpu_records = GpuRecords::All;
  if (gpu_records == GpuRecords::First || gpu_records == GpuRecords::Model) p.gpu_model = opt.model_gpu = true;
  if (gpu_records == GpuRecords::Model) p.records_live = false;  // every traced call is modelled, from the start
  p.run.gpu_records = gpu_records_name(gpu_records);
  p.first_max = std::chrono::milliseconds(env_number("SYNCLINT_PROBE_FIRST_MAX_MS", 20000));
  // The probe's time around each call it records, taken out of the replayed host gaps: "0" none.
  const char* callback_ns = std::getenv("SYNCLINT_PROBE_CALLBACK_NS");
  opt.callback_overhead_ns = callback_ns != nullptr && std::strcmp(callback_ns, "0") == 0
                                 ? 0
                                 : env_number("SYNCLINT_PROBE_CALLBACK_NS", kCallbackOverheadNs);
  p.run.callback_overhead_ns = opt.callback_overhead_ns;
  p.rec = std::make_unique<Recorder>(opt);
  p.filters = make_site_filters(std::getenv("SYNCLINT_PROBE_SKIP"));
  p.python = std::make_unique<PythonSites>(p.filters.python_files, p.rec->sites());
  if (env_flag_default("SYNCLINT_PROBE_PYTHON_CALLS", true)) p.python->time_calls(now_ns, on_python_call);
  if (const char* shim = std::getenv("SYNCLINT_PROBE_TORCH_OPS"); shim != nullptr) p.torch_ops_path = shim;
  p.native = std::make_unique<NativeSites>(p.filters, p.rec->sites());
  p.record_launch_keys = opt.record_max_calls > 0;
  p.traced = true;
  p.spans.switched(true, 0);  // the first stretch holds everything from the start
  p.keep_records = env_flag("SYNCLINT_PROBE_KEEP_RECORDS");
  p.keep_callbacks = env_flag("SYNCLINT_PROBE_KEEP_CALLBACKS");
  p.switch_at_sync = !p.keep_callbacks && env_flag_default("SYNCLINT_PROBE_SWITCH_AT_SYNC", p.gpu_model);
  p.switch_at_launch = p.switch_at_sync && env_flag_default("SYNCLINT_PROBE_SWITCH_AT_LAUNCH", true);
  p.records_off_at_switch = p.switch_at_sync && env_flag_default("SYNCLINT_PROBE_RECORDS_OFF_AT_SWITCH", true);

  CUptiResult r = p.cupti.subscribe(&p.subscriber, on_callback, nullptr);
  if (r != CUPTI_SUCCESS) {
    std::string why = "cuptiSubscribe failed: " + p.cupti.describe(r);
    if (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED)
      why += " (another CUPTI client holds it: torch.profiler, nsys, ncu or compute-sanitizer)";
    p.rec.reset();
    unavailable(why);
    std::atexit(on_exit_handler);
    return 1;
  }
  // Diagnostics of the probe's own cost: without launch callbacks or GPU records the analysis is blind.
  p.launch_callbacks = env_flag_default("SYNCLINT_PROBE_LAUNCHES", true);
  build_tables(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_SIZE, p.runtime, false);
  const char* drv = std::getenv("SYNCLINT_PROBE_DRIVER");
  if (drv == nullptr || std::strcmp(drv, "0") != 0)
    build_tables(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_SIZE, p.driver,
                 drv != nullptr && std::strcmp(drv, "all") == 0);
  std::string partial = attach_activity();
  if (env_flag("SYNCLINT_PROBE_LATENCY") && p.cupti.enable_latency_timestamps != nullptr)
    p.cupti.enable_latency_timestamps(1);
  p.record_kinds = record_kinds_from(std::getenv("SYNCLINT_PROBE_GPU_RECORD_KINDS"));
  const bool with_records = gpu_records != GpuRecords::None && gpu_records != GpuRecords::Model;
  for (auto kind : with_records ? p.record_kinds : std::vector<CUpti_ActivityKind>{})
    if (partial.empty() && (r = p.cupti.activity_enable(kind)) != CUPTI_SUCCESS)
      partial = "activity kind " + std::to_string(static_cast<int>(kind)) + ": " + p.cupti.describe(r);
  if (partial.empty() && env_flag("SYNCLINT_PROBE_RUNTIME_RECORDS") &&
      (r = p.cupti.activity_enable(CUPTI_ACTIVITY_KIND_RUNTIME)) != CUPTI_SUCCESS)
    partial = "activity kind runtime: " + p.cupti.describe(r);
  p.activity_ok = partial.empty() && with_records;  // without records, stretches do not switch them on either
  if (!partial.empty()) {
    p.status = "partial: no GPU activity records (" + partial + ")";
    report_error(p.status);
  }

  if (void* cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD); cuda != nullptr) {
    p.pointer_attribute = reinterpret_cast<Probe::PointerAttr>(dlsym(cuda, "cuPointerGetAttribute"));
    p.device_name = reinterpret_cast<Probe::DeviceName>(dlsym(cuda, "cuDeviceGetName"));
  }
  if (env_flag("SYNCLINT_PROBE_TRACE")) {
    auto path = output_file("trace", p.run.pid, p.run.rank);
    std::error_code ec;
    std::filesystem::create_directories(path.parent_path(), ec);
    p.trace_out.open(path, std::ios::binary | std::ios::trunc);
    if (p.trace_out) {
      std::string name = p.run.command.empty() ? "process" : p.run.command.front();
      p.trace = std::make_unique<TraceWriter>(p.trace_out, p.run.pid, name);
    } else {
      report_error("cannot write " + path.string());
    }
  }

  p.start_ns = now_ns();
  p.rec->set_run_start(p.start_ns);
  if (pipe2(p.wake, O_CLOEXEC | O_NONBLOCK) == 0) {
    p.rec->set_on_full([] { wake_watcher('F'); });
    p.watcher = std::thread(watcher_main);
  }
  p.resolver = std::thread(resolver_main);
  g_recording.store(true);
  std::atexit(on_exit_handler);
  pthread_atfork(nullptr, nullptr, on_fork_child);
  install_signal_handlers();
  if (p.debug) {
    install_fault_handlers();
    p.startup_cpu_ms = cpu_ms(RUSAGE_SELF) - cpu_before;
    p.startup_wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - init_began).count();
  }
  return 1;
}

}  // namespace
}  // namespace synclint::probe::inject

extern "C" __attribute__((visibility("default"))) int InitializeInjection(void) {
  static std::atomic<bool> done{false};
  if (done.exchange(true)) return 1;
  try {
    return synclint::probe::inject::initialize();
  } catch (const std::exception& ex) {
    std::fprintf(stderr, "synclint probe: disabled: %s\n", ex.what());
  } catch (...) {
    std::fprintf(stderr, "synclint probe: disabled\n");
  }
  return 1;
}
