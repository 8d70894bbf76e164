// Timeline analysis of recorded event streams: per-site host-blocked time, GPU idle after each sync, and
// the what-if estimate (end-to-end time saved if a site did not synchronize), replaying the host and GPU
// timelines without that site's waits. Plain C++, used by the injected probe (in-process, window by
// window, bounded memory) and by the synclint CLI and tests (recorded streams).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
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
};

struct SiteResult {
  Site site;
  std::string api;             // the blocking API seen most at this site ("cudaStreamSynchronize")
  std::string rule_guess;      // "SYNC001"... from the API pattern, "" when unsure
  std::uint64_t calls = 0;
  double host_blocked_ms = 0;
  double gpu_idle_ms = 0;
  double predicted_saving_ms = 0;
  double share_of_run = 0;     // predicted_saving_ms / wall_ms
  // The same replay with the read removed entirely, as the recommended fixes do: the sync takes no
  // time and the device-to-host copy that fed it (host call and GPU copy) is gone too.
  double saving_if_removed_ms = 0;
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
  // Fidelity of the what-if replay: (replayed span as recorded - recorded span) / recorded span.
  // Near 0 when the model reproduces the run; savings are differences of two replays either way.
  double replay_error = 0;
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

  // Events buffered and not yet analysed (bounded: a segment is forced at kMaxPendingEvents).
  std::size_t pending_events() const;
  static constexpr std::size_t kMaxPendingEvents = 1u << 18;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// The report order: predicted saving, then host blocked time (largest first), then site.
void sort_sites(std::vector<SiteResult>& sites);

// Convenience: one whole stream through an Accumulator.
ProbeReport analyze(const EventStream& stream, RunInfo run = {});

}  // namespace synclint::probe
