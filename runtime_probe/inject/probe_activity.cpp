// The Activity API's GPU records: the kernel, copy and memset kinds that traced stretches switch on, the
// buffers CUPTI fills with them (one queue for all threads), and their delivery to the recorder.
#include <cuda_runtime_api.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "probe_state.h"
#include "work_keys.h"

namespace synclint::probe::inject {
namespace {

constexpr std::size_t kActivityBufferBytes = 8u << 20;
constexpr CUpti_ActivityKind kRecordKinds[] = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
                                               CUPTI_ACTIVITY_KIND_MEMSET};

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
  p.rec->add_gpu(out.data(), out.size());
  p.gpu_records += out.size();
  size_t dropped = 0;
  if (p.cupti.activity_get_num_dropped_records(ctx, stream_id, &dropped) == CUPTI_SUCCESS && dropped > 0)
    p.rec->add_dropped(dropped);
  std::free(buffer);
}

}  // namespace

// Switches every GPU record kind that traced stretches follow on or off.
void switch_record_kinds(Probe& p, bool on) {
  for (auto kind : kRecordKinds) {
    if (on) p.cupti.activity_enable(kind);
    else p.cupti.activity_disable(kind);
  }
}

// The rest of attaching, once the tables are built: context teardown callback, activity buffers.
std::string attach_activity() {
  Probe& p = *g;
  p.cupti.enable_callback(1, p.subscriber, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING);
  // One activity buffer queue for all threads, as before CUPTI 13: with its per-thread buffers (13's
  // default), CUPTI crashed LibTorch programs in its own thread while delivering the records of a stretch
  // switched on mid-run. The attribute is set before the buffer callbacks are registered, as CUPTI requires.
  CUptiResult r;
  if (p.cupti.activity_set_attribute != nullptr) {
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

std::string enable_record_kinds() {
  Probe& p = *g;
  for (auto kind : kRecordKinds)
    if (const CUptiResult r = p.cupti.activity_enable(kind); r != CUPTI_SUCCESS)
      return "activity kind " + std::to_string(static_cast<int>(kind)) + ": " + p.cupti.describe(r);
  return {};
}

}  // namespace synclint::probe::inject
