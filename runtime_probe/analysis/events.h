// The event stream the probe records and the analysis consumes. Plain C++: no CUDA, no CUPTI, no LLVM,
// so the analysis is tested in CI from recorded and synthetic streams.
// All timestamps are nanoseconds on one clock (CUPTI's cuptiGetTimestamp clock for both host and GPU).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace synclint::probe {

// A source site: where in the user's code a host call was made.
struct Site {
  std::string path;      // absolute path as seen by the probed process
  std::uint32_t line = 0;
  std::string function;  // "train_step", "Trainer::step"
  std::string language;  // "python" or "cpp"
};

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
  std::uint64_t dropped_activity_records = 0;
};

}  // namespace synclint::probe
