// The probe's in-memory state: per-thread host call buffers (filled from the CUPTI callbacks, no shared
// lock on the hot path), GPU activity records (from the Activity API buffers), and the window cut that
// turns both into an EventStream chunk for the Accumulator. Memory is bounded by the window size.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "analysis/analysis.h"
#include "analysis/events.h"
#include "analysis/gpu_model.h"
#include "site_table.h"

namespace synclint::probe::inject {

struct RawCall {
  std::uint64_t start = 0, end = 0, correlation = 0;
  std::uint32_t api = 0;  // index into Recorder::api_names()
  HostCallKind kind = HostCallKind::Other;
  std::int32_t site = -1;
  bool traced = true;  // recorded while launches and GPU records were traced (sampling)
  bool python_call = false;  // a timed Python call around blocking calls (PythonCall), not a CUDA call
  std::uint32_t probe_ns = 0;  // the probe's own time right after the call returned (HostCall::probe_ns)
  std::uint64_t launch_key = 0, launch_family = 0, stream_handle = 0;  // as in HostCall
  std::uint64_t launch_blocks = 0;                                       // as in HostCall
  std::uint32_t launch_block_threads = 0;                                // as in HostCall
  bool gpu_modelled = false;   // traced while the GPU records were off (HostCall::gpu_modelled)
  std::uint32_t descheduled_ns = 0;  // a blocking call's wait for a CPU inside it (HostCall::descheduled_ns)
};

struct RawGpu {
  std::uint64_t start = 0, end = 0, correlation = 0;
  std::uint32_t device = 0, stream = 0;
  std::uint32_t name = 0;  // index into Recorder's interned names
  GpuActivityKind kind = GpuActivityKind::Kernel;
  bool driver_correlation = false;  // correlation is a driver API id (memset): mapped at the cut
};

struct RecorderOptions {
  std::size_t window_calls = 200000;         // host calls per window before a cut is asked for
  std::uint64_t window_ns = 2'000'000'000;   // a cut at least this often
  std::size_t record_max_calls = 0;          // keep up to this many host calls of raw stream (0: none)
  bool keep_last_window = false;             // for the trace
  bool model_gpu = false;                    // model the GPU work of calls traced without records (GpuModel)
  std::uint64_t callback_overhead_ns = 0;    // EventStream::callback_overhead_ns of every window
};

class Recorder {
 public:
  explicit Recorder(RecorderOptions options);
  ~Recorder();
  Recorder(const Recorder&) = delete;
  Recorder& operator=(const Recorder&) = delete;

  const RecorderOptions& options() const { return options_; }
  SiteTable& sites() { return sites_; }

  // Setup (before any callback): an API name, returns its id.
  std::uint32_t add_api(std::string name);
  const std::string& api_name(std::uint32_t id) const { return api_names_[id]; }

  // Hot path: appends to the calling thread's buffer. Calls `on_full` (if set) once per window when this
  // thread's buffer reaches the window size.
  void add_call(const RawCall& call);
  void set_on_full(void (*fn)()) { on_full_ = fn; }
  // Gives the calling thread's last recorded call a site, if it is the call with this correlation id.
  void set_last_site(std::uint64_t correlation, std::int32_t site);

  // Activity buffer thread: GPU records, names, dropped counts, driver->runtime correlation.
  std::uint32_t intern_name(const char* name);
  void add_gpu(const RawGpu* records, std::size_t n);
  void add_dropped(std::uint64_t n) { dropped_ += n; }
  void map_correlation(std::uint64_t driver_id, std::uint64_t runtime_id);

  // Takes every host call that started before `cut_ns` and every GPU record that started before it (all
  // of them when `final`) out of the buffers, as one time-sorted chunk.
  EventStream take_window(std::uint64_t cut_ns, bool final);
  // Where the next cut may safely be: `now_ns` minus a margin, but not past the last GPU record seen while
  // GPU work may still be pending.
  std::uint64_t safe_cut(std::uint64_t now_ns) const;
  // Feeds the chunk to the accumulator and keeps what the raw stream / trace need.
  void consume(EventStream chunk);
  // Sampled tracing: launches and GPU records were switched on or off at `ns`. Calls recorded while off
  // (RawCall::traced false) are counted per site (blocking calls only) instead of being analysed, and
  // the time while off is excluded from GPU idle measurement.
  void tracing_switched(bool on, std::uint64_t ns);

  ProbeReport finish(RunInfo run) const;
  std::uint64_t host_calls_seen() const { return calls_seen_; }
  std::uint64_t windows() const { return windows_; }
  // The raw stream kept so far (windows concatenated, sites as of now); `truncated` when capped.
  EventStream recorded(bool& truncated) const;
  EventStream last_window() const;
  // With model_gpu: what the GPU model learned and how the syncs re-timed its work, one line (debug).
  std::string model_summary() const;
  void set_run_start(std::uint64_t ns) { run_start_ns_ = ns; window_start_ns_ = ns; }
  std::uint64_t run_start() const { return run_start_ns_; }

 private:
  struct ThreadBuffer {
    std::mutex mu;
    std::vector<RawCall> calls;
    std::uint32_t thread = 0;
    bool notified = false;
    std::atomic<bool> dead{false};
  };
  ThreadBuffer* thread_buffer();

  RecorderOptions options_;
  SiteTable sites_;
  std::vector<std::string> api_names_;
  void (*on_full_)() = nullptr;

  std::mutex threads_mu_;
  std::vector<ThreadBuffer*> threads_;
  std::uint32_t next_thread_ = 0;

  mutable std::mutex gpu_mu_;
  std::vector<RawGpu> gpu_;
  std::vector<std::string> names_;
  std::unordered_map<std::string, std::uint32_t> name_index_;
  std::unordered_map<std::uint64_t, std::uint64_t> driver_to_runtime_;
  std::uint64_t last_gpu_end_ = 0;
  bool gpu_since_cut_ = false;

  std::atomic<std::uint64_t> dropped_{0};
  std::uint64_t dropped_reported_ = 0;
  std::atomic<std::uint64_t> calls_seen_{0};

  mutable std::mutex out_mu_;  // accumulator, recorded stream, last window, GPU model
  Accumulator acc_;
  GpuModel model_;
  UntracedCalls untraced_;
  EventStream untraced_chunk_;  // untraced calls of the window being cut (take_window -> consume)
  std::uint64_t untraced_ns_ = 0, off_since_ns_ = 0;
  bool sampled_ = false, tracing_on_ = true;
  std::uint64_t windows_ = 0;
  std::uint64_t run_start_ns_ = 0, window_start_ns_ = 0, last_end_ns_ = 0;
  EventStream recorded_;
  bool recorded_truncated_ = false;
  EventStream last_;

  friend struct ThreadBufferHolder;
};

}  // namespace synclint::probe::inject
