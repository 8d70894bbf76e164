// A stand-in for libcupti, for testing the injected probe's callback path without a GPU: the probe opens it
// through SYNCLINT_CUPTI_PATH and subscribes; a host program (fake_cuda_host.cpp) then plays API calls
// (ENTER and EXIT callbacks) and GPU kernel records through fake_cupti_call / fake_cupti_kernel, as CUPTI
// would deliver them. FAKE_CUPTI_BUSY=1 makes cuptiSubscribe fail as when another subscriber holds CUPTI;
// FAKE_CUPTI_DROPPED=N reports N dropped records with every completed buffer; FAKE_CUPTI_LOG=FILE gets a
// line "enable|disable NS" each time the kernel records are switched, "flush|forced-flush NS" for each
// flush ("disable-on-host-thread NS" besides "disable" when the thread that switches them off is one that
// played API calls, the program's) and "per-thread-buffers-off NS" when CUPTI's per-thread activity buffers are turned off
// (CLOCK_MONOTONIC), and with FAKE_CUPTI_LOG_ALL_KINDS=1 also "enable-K|disable-K NS" for the other
// activity kinds (K: CUpti_ActivityKind's number), and "callback-off-inside NS" each time an API callback
// is switched off while a thread is between its delivered ENTER and its EXIT, and with
// FAKE_CUPTI_LOG_CALLBACKS=1 "callback-on|callback-off NS" for every runtime API callback switched; turning the per-thread buffers off after the buffer
// callbacks are registered is refused, as CUPTI requires.
#include <cupti.h>
#include <pthread.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <mutex>
#include <set>
#include <thread>
#include <utility>
#include <vector>

namespace {

// Never destroyed, as the real library's state: a program that calls exit() on one thread while others
// still make CUDA calls runs the static destructors under them. The lock is held across fork(), so that a
// child can make calls even when the fork came while another thread was inside one.
std::mutex& g_mu = *new std::mutex;
[[maybe_unused]] const int g_fork_safe = pthread_atfork([] { g_mu.lock(); }, [] { g_mu.unlock(); }, [] { g_mu.unlock(); });
CUpti_CallbackFunc g_callback = nullptr;
std::set<std::pair<int, CUpti_CallbackId>>& g_enabled = *new std::set<std::pair<int, CUpti_CallbackId>>;
std::set<int>& g_activities = *new std::set<int>;
CUpti_BuffersCallbackRequestFunc g_request = nullptr;
CUpti_BuffersCallbackCompleteFunc g_complete = nullptr;
std::vector<CUpti_ActivityKernel10>& g_kernels = *new std::vector<CUpti_ActivityKernel10>;  // delivered at the next flush
// Calls whose ENTER was delivered and whose EXIT has not come.
std::multiset<CUpti_CallbackId>& g_inside = *new std::multiset<CUpti_CallbackId>;
thread_local std::multiset<CUpti_CallbackId> t_inside;  // the same, of this thread
thread_local bool t_host = false;  // this thread has played API calls (the program's thread)

const char* runtime_name(CUpti_CallbackId cbid) {
  switch (cbid) {
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000: return "cudaLaunchKernel_v7000";
    case CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000: return "cudaGraphLaunch_v10000";
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020: return "cudaMemcpyAsync_v3020";
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020: return "cudaStreamSynchronize_v3020";
    case CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020: return "cudaDeviceSynchronize_v3020";
    default: return nullptr;
  }
}

}  // namespace

extern "C" {

void log_switch(CUpti_ActivityKind kind, const char* what);

CUptiResult cuptiSubscribe(CUpti_SubscriberHandle* subscriber, CUpti_CallbackFunc callback, void*) {
  if (const char* busy = std::getenv("FAKE_CUPTI_BUSY"); busy != nullptr && std::strcmp(busy, "1") == 0)
    return CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
  std::lock_guard lock(g_mu);
  g_callback = callback;
  *subscriber = reinterpret_cast<CUpti_SubscriberHandle>(0x1);
  return CUPTI_SUCCESS;
}
CUptiResult cuptiUnsubscribe(CUpti_SubscriberHandle) { return CUPTI_SUCCESS; }
CUptiResult cuptiEnableCallback(uint32_t enable, CUpti_SubscriberHandle, CUpti_CallbackDomain domain, CUpti_CallbackId cbid) {
  bool inside = false;
  {
    std::lock_guard lock(g_mu);
    if (enable) g_enabled.insert({domain, cbid});
    else g_enabled.erase({domain, cbid});
    inside = !enable && domain == CUPTI_CB_DOMAIN_RUNTIME_API && g_inside.count(cbid) > 0;
  }
  if (inside) log_switch(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, "callback-off-inside");
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API && std::getenv("FAKE_CUPTI_LOG_CALLBACKS") != nullptr)
    log_switch(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, enable ? "callback-on" : "callback-off");
  return CUPTI_SUCCESS;
}
CUptiResult cuptiEnableDomain(uint32_t, CUpti_SubscriberHandle, CUpti_CallbackDomain) { return CUPTI_SUCCESS; }
CUptiResult cuptiGetCallbackName(CUpti_CallbackDomain domain, uint32_t cbid, const char** name) {
  *name = domain == CUPTI_CB_DOMAIN_RUNTIME_API ? runtime_name(cbid) : nullptr;
  return *name != nullptr ? CUPTI_SUCCESS : CUPTI_ERROR_INVALID_PARAMETER;
}
CUptiResult cuptiGetTimestamp(uint64_t* timestamp) {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  *timestamp = static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000ull + static_cast<uint64_t>(ts.tv_nsec);
  return CUPTI_SUCCESS;
}
CUptiResult cuptiGetResultString(CUptiResult, const char** str) {
  *str = "CUPTI_ERROR_FAKE";
  return CUPTI_SUCCESS;
}
CUptiResult cuptiGetTimestamp(uint64_t* timestamp);

void log_switch(CUpti_ActivityKind kind, const char* what) {
  const char* path = std::getenv("FAKE_CUPTI_LOG");
  if (path == nullptr) return;
  // The kernel kind's switches as they are; the other kinds' (memcpy, memset) only with
  // FAKE_CUPTI_LOG_ALL_KINDS=1, suffixed with the kind's number.
  const bool kernel = kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  if (!kernel && std::getenv("FAKE_CUPTI_LOG_ALL_KINDS") == nullptr) return;
  uint64_t now = 0;
  cuptiGetTimestamp(&now);
  if (FILE* f = std::fopen(path, "a")) {
    if (kernel) std::fprintf(f, "%s %llu\n", what, static_cast<unsigned long long>(now));
    else std::fprintf(f, "%s-%d %llu\n", what, static_cast<int>(kind), static_cast<unsigned long long>(now));
    std::fclose(f);
  }
}
CUptiResult cuptiActivityEnable(CUpti_ActivityKind kind) {
  std::lock_guard lock(g_mu);
  g_activities.insert(kind);
  log_switch(kind, "enable");
  return CUPTI_SUCCESS;
}
CUptiResult cuptiActivityDisable(CUpti_ActivityKind kind) {
  std::lock_guard lock(g_mu);
  g_activities.erase(kind);
  log_switch(kind, "disable");
  if (t_host) log_switch(kind, "disable-on-host-thread");
  return CUPTI_SUCCESS;
}
CUptiResult cuptiActivitySetAttribute(CUpti_ActivityAttribute attr, size_t* size, void* value) {
  if (attr != CUPTI_ACTIVITY_ATTR_PER_THREAD_ACTIVITY_BUFFER || *size != sizeof(uint8_t)) return CUPTI_ERROR_INVALID_PARAMETER;
  {
    std::lock_guard lock(g_mu);
    if (g_request != nullptr) return CUPTI_ERROR_INVALID_OPERATION;  // only before the buffer callbacks
  }
  if (*static_cast<uint8_t*>(value) == 0) log_switch(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, "per-thread-buffers-off");
  return CUPTI_SUCCESS;
}
CUptiResult cuptiActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc request, CUpti_BuffersCallbackCompleteFunc complete) {
  std::lock_guard lock(g_mu);
  g_request = request;
  g_complete = complete;
  return CUPTI_SUCCESS;
}
CUptiResult cuptiActivityGetNextRecord(uint8_t* buffer, size_t valid, CUpti_Activity** record) {
  uint8_t* next = *record == nullptr ? buffer : reinterpret_cast<uint8_t*>(*record) + sizeof(CUpti_ActivityKernel10);
  if (next + sizeof(CUpti_ActivityKernel10) > buffer + valid) return CUPTI_ERROR_MAX_LIMIT_REACHED;
  *record = reinterpret_cast<CUpti_Activity*>(next);
  return CUPTI_SUCCESS;
}
CUptiResult cuptiActivityGetNumDroppedRecords(CUcontext, uint32_t, size_t* dropped) {
  const char* n = std::getenv("FAKE_CUPTI_DROPPED");
  *dropped = n != nullptr ? std::strtoull(n, nullptr, 10) : 0;
  return CUPTI_SUCCESS;
}
// As documented: the default flush returns only buffers whose records are all complete (here the queue is
// one buffer: held back while a queued kernel has not ended); a forced one returns everything, a kernel
// still running with no end time.
CUptiResult cuptiActivityFlushAll(uint32_t flag) {
  const bool forced = (flag & CUPTI_ACTIVITY_FLAG_FLUSH_FORCED) != 0;
  log_switch(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, forced ? "forced-flush" : "flush");
  uint64_t now = 0;
  cuptiGetTimestamp(&now);
  std::vector<CUpti_ActivityKernel10> kernels;
  CUpti_BuffersCallbackRequestFunc request;
  CUpti_BuffersCallbackCompleteFunc complete;
  {
    std::lock_guard lock(g_mu);
    const bool incomplete = std::any_of(g_kernels.begin(), g_kernels.end(), [&](const auto& k) { return k.end > now; });
    if (forced || !incomplete) kernels.swap(g_kernels);
    request = g_request;
    complete = g_complete;
  }
  for (auto& k : kernels)
    if (k.end > now) k.end = 0;
  // Completed buffers come on a thread of CUPTI's own, as with the real library.
  CUptiResult result = CUPTI_SUCCESS;
  std::thread worker([&] {
    while (!kernels.empty() && request != nullptr && complete != nullptr) {
      uint8_t* buffer = nullptr;
      size_t size = 0, max_records = 0;
      request(&buffer, &size, &max_records);
      if (buffer == nullptr) {
        result = CUPTI_ERROR_OUT_OF_MEMORY;
        return;
      }
      const size_t n = std::min(kernels.size(), size / sizeof(CUpti_ActivityKernel10));
      std::memcpy(buffer, kernels.data(), n * sizeof(CUpti_ActivityKernel10));
      kernels.erase(kernels.begin(), kernels.begin() + static_cast<std::ptrdiff_t>(n));
      complete(nullptr, 0, buffer, size, n * sizeof(CUpti_ActivityKernel10));
    }
  });
  worker.join();
  return result;
}
CUptiResult cuptiActivityEnableLatencyTimestamps(uint8_t) { return CUPTI_SUCCESS; }

// ---- driven by the test host

// Delivers one API callback (ENTER or EXIT) if it is enabled, as CUPTI would on the calling thread.
void fake_cupti_call(CUpti_CallbackId cbid, CUpti_ApiCallbackSite site, uint32_t correlation, uint64_t* correlation_data,
                     const void* params) {
  CUpti_CallbackFunc callback;
  t_host = true;
  {
    std::lock_guard lock(g_mu);
    if (site == CUPTI_API_EXIT && t_inside.count(cbid) > 0) {  // its ENTER was delivered
      t_inside.erase(t_inside.find(cbid));
      g_inside.erase(g_inside.find(cbid));
    }
    if (g_enabled.count({CUPTI_CB_DOMAIN_RUNTIME_API, cbid}) == 0) return;
    if (site == CUPTI_API_ENTER) {
      t_inside.insert(cbid);
      g_inside.insert(cbid);
    }
    callback = g_callback;
  }
  CUpti_CallbackData data{};
  data.callbackSite = site;
  data.functionName = runtime_name(cbid);
  data.functionParams = params;
  data.correlationData = correlation_data;
  data.correlationId = correlation;
  if (callback != nullptr) callback(nullptr, CUPTI_CB_DOMAIN_RUNTIME_API, cbid, &data);
}

// Queues a kernel record (delivered at the next cuptiActivityFlushAll) while kernel records are enabled.
void fake_cupti_kernel(uint64_t start, uint64_t end, uint32_t correlation) {
  std::lock_guard lock(g_mu);
  if (g_activities.count(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) == 0) return;
  CUpti_ActivityKernel10 k{};
  k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  k.start = start;
  k.end = end;
  k.correlationId = correlation;
  k.streamId = 7;
  k.name = "fake_kernel";
  g_kernels.push_back(k);
}

}  // extern "C"
