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

// The report's data model is the shared probe report schema (lib/core/report_schema.h): the probe writes
// what `synclint check --costs` reads, field for field.
inline constexpr int kReportVersion = report_schema::kVersion;
using RunInfo = report_schema::Run;
using SiteResult = report_schema::Site;
using ProbeReport = report_schema::Report;

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
