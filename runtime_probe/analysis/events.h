// The event stream the probe records and the analysis consumes. Plain C++: no CUDA, no CUPTI, no LLVM,
// so the analysis is tested in CI from recorded and synthetic streams.
// All timestamps are nanoseconds on one clock (CUPTI's cuptiGetTimestamp clock for both host and GPU).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/report_schema.h"

namespace synclint::probe {

// A source site: where in the user's code a host call was made (the report's site location, so a site
// goes from the stream into the report unchanged).
using Site = report_schema::SiteLocation;

// What a runtime API call does to the host thread.
enum class HostCallKind : std::uint8_t {
  StreamSynchronize,   // cudaStreamSynchronize
  DeviceSynchronize,   // cudaDeviceSynchronize
  EventSynchronize,    // cudaEventSynchronize
  BlockingCopy,        // a copy that returns only when done: cudaMemcpy, D2H to pageable memory, ...
  AsyncCopy,           // cudaMemcpyAsync that does not block (no sync by itself)
  Launch,              // kernel launch (cudaLaunchKernel, ...): queues GPU work
  Other,               // anything else recorded (allocation, event record, ...)
};

// One runtime API call on a host thread (ENTER..EXIT).
struct HostCall {
  std::uint64_t start_ns = 0;
  std::uint64_t end_ns = 0;
  std::uint32_t thread = 0;          // small integer per OS thread
  std::uint64_t correlation_id = 0;  // CUPTI correlation id, links to GpuActivity
  HostCallKind kind = HostCallKind::Other;
  std::string api;                   // "cudaStreamSynchronize"
  std::int32_t site = -1;            // index into EventStream::sites, -1 when unknown
  // Set by the analysis from the PythonCall that made this call (0 otherwise): host time of that Python
  // call before this CUDA call (since the call's start or the previous CUDA call inside it), and after it
  // (until the Python call returned) when it is the last one inside.
  std::uint64_t py_before_ns = 0, py_after_ns = 0;
  // The probe's own time on this thread right after the call returned, before the program went on (its
  // exit callback: site capture and bookkeeping). Inside a timed Python call this is not the program's
  // time, so it is left out of py_before_ns / py_after_ns; 0 when not measured.
  std::uint64_t probe_ns = 0;
  // What the call queued, for GpuModel: a hash of the kernel function and its grid (launches), of the copy
  // kind and size (copies) or of the size (memsets); 0 when unknown. Recorded streams keep them.
  std::uint64_t launch_key = 0;
  std::uint64_t launch_family = 0;  // the same without the sizes: the kernel function, the copy kind
  std::uint64_t stream_handle = 0;  // the CUDA stream it named (0: the default stream)
  // A kernel launch's grid: its blocks (gridDim.x * y * z) and each block's threads (blockDim.x * y * z);
  // 0 otherwise. Recorded streams keep them for studies of what a kernel's duration follows (a prior for
  // the GPU model without records, bench/model_check); the analysis does not read them.
  std::uint64_t launch_blocks = 0;
  std::uint32_t launch_block_threads = 0;
  bool gpu_modelled = false;        // traced without GPU records: its GPU work is modelled (GpuModel)
  // A blocking call: how long its thread waited for a CPU while inside it (the growth of its run_delay in
  // /proc/thread-self/schedstat: runnable but not running, as when a spinning sync is preempted on an
  // overloaded host, or a woken one waits for a core). 0 when not measured.
  std::uint64_t descheduled_ns = 0;
};

// A wait for a CPU inside a blocking call up to this long (ns) is the ordinary wake-up of a thread that
// slept in the call, part of its return latency, which removing the call saves; beyond it the thread was
// descheduled (preempted on an overloaded host), and that time is the host's with or without the call.
inline constexpr std::uint64_t kDescheduledFloorNs = 50'000;

// The hash step of launch keys and families (HostCall::launch_key), shared by the probe, which computes
// them from the launch parameters, and GpuModel, which reads a copy's direction back from its family.
inline std::uint64_t key_mix(std::uint64_t h, std::uint64_t v) {
  return h ^ (v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2));
}
// The launch family of a copy of `kind` (cudaMemcpyKind: 0 host to host, 1 host to device, 2 device to
// host, 3 device to device, 4 inferred from the pointers): "Copy" and the kind, odd like every family.
// (Recordings made before 2026-12-02 hashed it with key_mix, which gave host-to-device and device-to-host
// copies one family; recording_as_modelled puts their families right from the copies' records.)
inline std::uint64_t copy_family(std::uint64_t kind) { return (0x436f7079ull << 32) | (kind << 1) | 1; }
// The names of copies' GPU records by direction, indexed by cudaMemcpyKind as above: the probe names
// CUPTI's records so, the GPU model the copies it stands in for, and the analysis reads a read's direction
// from them.
inline constexpr const char* kCopyRecordNames[] = {"memcpy HtoH", "memcpy HtoD", "memcpy DtoH", "memcpy DtoD"};

// A Python-level call that made blocking CUDA calls (`.item()`, `float(t)`, `print(t)`), timed from its
// CALL to its return in the user's frame (Python 3.12+): its host time outside the CUDA calls is
// interpreter and framework work that goes away with the read.
struct PythonCall {
  std::uint64_t start_ns = 0;
  std::uint64_t end_ns = 0;
  std::uint32_t thread = 0;
  std::int32_t site = -1;  // index into EventStream::sites
};

enum class GpuActivityKind : std::uint8_t { Kernel, Memcpy, Memset, Other };

// One GPU activity record (CUPTI Activity API).
struct GpuActivity {
  std::uint64_t start_ns = 0;
  std::uint64_t end_ns = 0;
  std::uint32_t device = 0;
  std::uint32_t stream = 0;
  std::uint64_t correlation_id = 0;  // links to the HostCall that queued it
  GpuActivityKind kind = GpuActivityKind::Kernel;
  std::string name;                  // kernel name or "memcpy DtoH"
};

struct EventStream {
  std::uint64_t run_start_ns = 0;
  std::uint64_t run_end_ns = 0;
  std::vector<Site> sites;
  std::vector<HostCall> host;   // sorted by start_ns
  std::vector<GpuActivity> gpu; // sorted by start_ns
  std::vector<PythonCall> python_calls;  // sorted by start_ns
  std::uint64_t dropped_activity_records = 0;
  // The host time the probe's tracing adds to each host call it records, outside the call's own start and
  // end (CUPTI's dispatch of its ENTER and EXIT callbacks and the probe's code in them): the replay takes
  // it out of the gap before each call, and a blocking call's measured probe_ns out of the gap after it,
  // so that what it replays is the program's own pace and not the traced one (docs/design.md,
  // "the probe's time taken out of the replay"). 0: not compensated (recordings made before 2026-12-03).
  std::uint64_t callback_overhead_ns = 0;
};

}  // namespace synclint::probe
