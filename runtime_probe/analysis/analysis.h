// Timeline analysis of recorded event streams: per-site host-blocked time, GPU idle after each sync, and
// the what-if estimate (end-to-end time saved if a site did not synchronize), replaying the host and GPU
// timelines without that site's waits. Plain C++, used by the injected probe (in-process, window by
// window, bounded memory) and by the synclint CLI and tests (recorded streams).
#pragma once

#include <cstdint>
#include <memory>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "events.h"

namespace synclint::probe {

inline constexpr int kReportVersion = 1;

struct RunInfo {
  std::vector<std::string> command;  // argv of the probed process, when known
  std::string cwd;                   // its working directory (for path mapping)
  std::string hostname;
  std::int64_t pid = 0;
  std::int32_t rank = -1;            // RANK / LOCAL_RANK / SLURM_PROCID when set, else -1
  std::string gpu_name;
  double wall_ms = 0;                // run_end - run_start
  std::string status = "ok";         // "ok", or why there is no/partial data ("cupti-unavailable: ...")
  // Where its GPU activities came from (SYNCLINT_PROBE_GPU_RECORDS): "model" (no records: every GPU activity
  // modelled from the syncs alone; the default), "first" (records in the first stretch, the later ones
  // modelled from them), "all" (records in every stretch), "none" (no GPU work at all, a diagnostic);
  // "mixed" in a merge of processes that differ; "" when not known (a report written before the field).
  std::string gpu_records;
  // The probe's time around each traced host call that the replay took out of the host's gaps
  // (EventStream::callback_overhead_ns; SYNCLINT_PROBE_CALLBACK_NS); 0: none taken out.
  std::uint64_t callback_overhead_ns = 0;
};

struct SiteResult {
  Site site;
  std::string api;             // the blocking API seen most at this site ("cudaStreamSynchronize")
  std::string rule_guess;      // "SYNC001"... from the API pattern, "" when unsure
  std::uint64_t calls = 0;
  std::uint64_t traced_calls = 0;  // calls in traced windows, that the estimates rest on (= calls unsampled)
  double host_blocked_ms = 0;
  double traced_host_blocked_ms = 0;  // host_blocked_ms of the traced calls (= host_blocked_ms unsampled)
  // host_blocked_ms with the traced calls' time as the replay sees them: without the probe's own time
  // around the host's calls (a stream with callback_overhead_ns), a traced read waits longer than it was
  // recorded to; = host_blocked_ms without it. The wait-driven estimates scale to untraced calls by it.
  double replayed_blocked_ms = 0;
  double gpu_idle_ms = 0;
  // The ranked estimate: the replay with the site's reads removed entirely, as the recommended fixes do
  // (the sync takes no time and the device-to-host copy that fed it, host call and GPU copy, is gone).
  double predicted_saving_ms = 0;
  double share_of_run = 0;     // predicted_saving_ms / wall_ms
  double saving_if_removed_ms = 0;  // the same number as predicted_saving_ms (kept for older readers)
  // The replay with only the site's waits removed (its calls keep their non-waiting API overhead).
  double wait_saving_ms = 0;
  // Host time of the timed Python calls that made the site's reads, outside their CUDA calls (Python
  // 3.12+; 0 otherwise): what a removed read takes along besides its calls (docs/probe.md).
  double python_call_ms = 0;
};

struct ProbeReport {
  int version = kReportVersion;
  RunInfo run;
  std::vector<SiteResult> sites;  // ordered by predicted_saving_ms, largest first
  std::uint64_t syncs = 0;
  double host_blocked_ms = 0;
  double gpu_idle_ms = 0;
  std::uint64_t dropped_activity_records = 0;
  std::uint64_t windows = 0;      // how many windows were analysed
  // Fraction of the run's time traced in full (launches and GPU activity records); per-site GPU idle
  // and savings measured there are scaled to all the site's calls (add_untraced). 1 when fully traced.
  double sampled_fraction = 1;
  // Fidelity of the what-if replay: (replayed span as recorded - recorded span) / recorded span.
  // Near 0 when the model reproduces the run; savings are differences of two replays either way.
  double replay_error = 0;
  // With SYNCLINT_PROBE_GPU_RECORDS=first: GPU activities modelled for stretches traced without records
  // (GpuModel), and how many of them had no learned duration (work first queued after the first stretch).
  std::uint64_t modelled_gpu_activities = 0;
  std::uint64_t modelled_without_duration = 0;
  std::vector<RunInfo> runs;      // per process: one entry for a single process, one per rank when merged
};

// Consumes the stream window by window; keeps per-site aggregates only, so memory stays bounded.
// Windows may be cut anywhere: events are buffered and analysed in segments that end wherever the GPU
// had drained (the end of a sync that waited for it), carrying the small replay state across segments,
// so splitting a stream into windows does not change the results.
class Accumulator {
 public:
  Accumulator();
  ~Accumulator();
  Accumulator(Accumulator&&) noexcept;
  Accumulator& operator=(Accumulator&&) noexcept;
  Accumulator(const Accumulator&);
  Accumulator& operator=(const Accumulator&);

  // `chunk` holds a contiguous time window (host calls and GPU activities); sites are indices into
  // chunk.sites, which the accumulator merges by (path, line, function).
  void consume(const EventStream& chunk);
  void consume(EventStream&& chunk);  // the same, moving the records instead of copying them
  ProbeReport finish(RunInfo run) const;
  // Sampled tracing: [from_ns, to_ns) was not traced; GPU idle gaps that overlap it are not counted.
  void exclude(std::uint64_t from_ns, std::uint64_t to_ns);

  // Events buffered and not yet analysed (bounded: a segment is forced at kMaxPendingEvents).
  std::size_t pending_events() const;
  static constexpr std::size_t kMaxPendingEvents = 1u << 18;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// The part of a recording that starts in [from_ns, to_ns), as sampled tracing would have handed it over:
// traced, every host call, GPU activity and timed Python call; untraced, the blocking calls alone. For
// replaying full recordings as sampled (bench/sampling_check, tests).
EventStream stretch_of(const EventStream& s, std::uint64_t from_ns, std::uint64_t to_ns, bool traced);

// Sampled tracing: outside the traced windows only the blocking calls are recorded (no launches, no GPU
// records), so they count calls and host-blocked time but cannot be replayed.
struct UntracedCalls {
  std::map<std::tuple<std::string, std::uint32_t, std::string>, std::pair<Site, std::uint64_t>> sites;  // key -> site, calls
  std::map<std::tuple<std::string, std::uint32_t, std::string>, std::map<std::string, std::uint64_t>> apis;
  std::map<std::tuple<std::string, std::uint32_t, std::string>, double> blocked_ns;
  std::uint64_t unknown_calls = 0;  // blocking calls whose site is unknown
  double unknown_blocked_ns = 0;
  // Adds the blocking calls of an untraced chunk.
  void add(const EventStream& chunk);
};
// Folds the untraced calls into the report of the traced windows: calls and host-blocked time are summed.
// A site's estimates, measured on its traced calls, are scaled to all its calls: what grows with the
// waiting (the wait-only saving, and the GPU idle after, both bounded by the waits) by host-blocked time
// (value * all blocked / traced blocked: a ratio estimator on the one cost known for every call), the
// rest of the removed-read saving (API overhead, copies, Python time) and the Python time per call
// (value * all calls / traced calls). A site never seen in a traced window keeps zero estimates.
// totals.gpu_idle_ms is scaled by time (total_ns / traced_ns); sampled_fraction = traced_ns / total_ns.
void add_untraced(ProbeReport& report, const UntracedCalls& untraced, double traced_ns, double total_ns);

// The report order: predicted saving, then host blocked time (largest first), then site.
void sort_sites(std::vector<SiteResult>& sites);

// Convenience: one whole stream through an Accumulator.
ProbeReport analyze(const EventStream& stream, RunInfo run = {});

}  // namespace synclint::probe
