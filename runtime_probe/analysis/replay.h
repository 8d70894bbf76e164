// Internal to the analysis: one segment of the recorded timeline (from one GPU-drained point to the
// next), prepared once from the recording and replayed per scenario (baseline, and "site S does not
// wait" for each site S). See docs/probe.md, "How the numbers are computed".
#pragma once

#include <compare>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analysis/clock.h"
#include "analysis/events.h"

namespace synclint::probe::detail {

// Calls that block the host thread until GPU work is done.
bool is_blocking(HostCallKind kind);

// Time tolerances (ns): a sync "spans" the end of GPU work it returned within kSpanToleranceNs of.
inline constexpr std::uint64_t kSpanToleranceNs = 2000;
// Non-waiting cost of a sync when none was observed to take less: the measured floor of a scalar
// D2H copy + stream sync on an idle H200 is 3-4 us (docs/probe.md).
inline constexpr double kDefaultSyncOverheadNs = 4000;
// A sync that returned longer than this after the GPU work it waited for had ended was descheduled (an
// overloaded host: a spinning or blocking sync wakes within a few us of the GPU, 3 us on the H200, and a
// preemption lasts a millisecond or more). The time beyond it is host time that the program loses with or
// without the sync: removing the sync does not remove it.
inline constexpr double kMaxWakeNs = 200'000;

struct StreamKey {
  std::uint32_t device = 0;
  std::uint32_t stream = 0;
  auto operator<=>(const StreamKey&) const = default;
};

// An idle gap on one device between two busy periods, attributed to the blocking host call that was
// waiting when the device ran out of work (site -1 and empty api when none was).
struct IdleGap {
  std::uint32_t device = 0;
  std::uint64_t start_ns = 0, end_ns = 0;
  std::int32_t site = -1;
  std::string api;
};

// Finds idle gaps window by window (the last busy period of each device carries over). A gap is
// attributed to the blocking call that was waiting when the device drained, for at most as long as that
// call had waited: without the wait the host would have reached its next launch that much earlier, so no
// more of the gap can be the wait's doing; the rest (host work after the sync, start-up) is reported as
// an unattributed gap right after it.
class IdleTracker {
 public:
  // host and gpu sorted by start_ns.
  void feed(const std::vector<HostCall>& host, const std::vector<GpuActivity>& gpu,
            const std::function<void(const IdleGap&)>& on_gap);
  // [from, to) was not traced (sampling): a gap that overlaps it is not an idle gap anyone saw.
  // Only the latest intervals are kept (bounded memory): a gap that overlaps an older one spans every
  // later untraced interval up to its end too.
  void exclude(std::uint64_t from, std::uint64_t to) {
    if (excluded_.size() >= 256) excluded_.erase(excluded_.begin(), excluded_.begin() + 128);
    excluded_.emplace_back(from, to);
  }

 private:
  struct Busy {
    std::uint64_t until = 0;
    std::int32_t site = -1;
    std::string api;
    std::uint64_t wait_ns = 0;  // how long the waiting call had been blocked when the device drained
  };
  std::map<std::uint32_t, Busy> busy_;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> excluded_;
};

// Facts learned from the recording that later segments need (all small).
struct RecordedCarry {
  std::map<StreamKey, std::uint64_t> last_end;     // recorded end of the latest activity launched per stream
  std::optional<StreamKey> last_launch_stream;     // stream of the most recent launch
  std::map<std::uint32_t, double> latency_floor;   // per device: min launch-to-start latency seen
  std::map<std::string, double> api_min_ns;        // per blocking API: shortest call seen
  IdleTracker idle;                                // idle-gap attribution
  double callback_ns = 0;  // the probe's time around each recorded call (EventStream::callback_overhead_ns)
};

struct StreamReplay {
  // Replayed times can precede the origin (work queued before the first call replayed).
  double ready = RelativeClock::kNever;     // replayed end of the last activity that ran on the stream
  double last_end = RelativeClock::kNever;  // replayed end of the latest launched activity (what a sync waits for)
};

// The replayed host chain and GPU streams of one scenario.
struct Scenario {
  bool started = false;
  std::uint64_t frontier_rec = 0;  // latest recorded host-call end so far
  double frontier_rep = 0;         // replayed end of that call (ns from clock's origin, as every replayed time)
  std::uint64_t prev_start_rec = 0;
  double prev_start_rep = 0;
  double frontier_probe_ns = 0;    // the probe's measured time right after that call (HostCall::probe_ns)
  std::map<StreamKey, StreamReplay> streams;
  double end() const;              // when the replayed timeline is done (host and GPU)
  bool drained() const;            // no GPU work pending past the host frontier
  RelativeClock clock;  // recorded times as replayed ones: ns from the first time replayed
};

// What one segment adds to one site (site ids are the caller's).
struct SiteDelta {
  std::uint64_t calls = 0;
  double blocked_ns = 0;
  double idle_ns = 0;
  // Upper bounds of the savings: removing waits cannot save more than the waits (duration minus the
  // overhead kept); removing reads not more than the removed calls and GPU copies.
  double wait_bound_ns = 0, read_bound_ns = 0;
  double python_ns = 0;  // host time of the Python calls that made the reads, outside their CUDA calls
  std::map<std::string, std::uint64_t> apis;
  std::map<std::string, std::uint64_t> rules;  // rule guess per call
};

class Segment {
 public:
  // host and gpu sorted by start_ns; site fields are caller site ids. Updates `carry` (recorded facts)
  // and fills per-site deltas (calls, blocked, idle after) and the total GPU idle time.
  Segment(std::vector<HostCall> host, std::vector<GpuActivity> gpu, RecordedCarry& carry);

  const std::map<std::int32_t, SiteDelta>& sites() const { return deltas_; }
  double gpu_idle_ns() const { return gpu_idle_ns_; }

  // Replays this segment on `s` (continuing from its state). Removal::Wait: the blocking calls of
  // `removed_site` (-1: none) take only their non-waiting overhead. Removal::Read: they take no time
  // and the device-to-host copies that fed them (an async DtoH copy right before the sync, same site
  // and thread) are gone too, host call and GPU copy, as in the recommended fixes.
  // With `blocked`, each blocking call's replayed duration is added to its site's entry.
  enum class Removal { Wait, Read };
  void replay(Scenario& s, std::int32_t removed_site, Removal how = Removal::Wait,
              std::map<std::int32_t, double>* blocked = nullptr) const;

 private:
  struct Call {
    std::size_t host = 0;
    bool blocking = false;
    bool feeds_read = false;  // a DtoH copy whose value the next call (a sync, same site) waits for
    std::int64_t first_act = -1, last_act = -1;  // linked GPU activities (a list through Act::next)
    std::uint32_t waits_begin = 0, waits_end = 0;  // streams a sync waits for: waits_[begin, end)
    double kept_overhead = 0, removed_overhead = 0, wake = 0;
    // Host time lost inside the call (the wake-up beyond kMaxWakeNs, or the measured wait for a CPU,
    // HostCall::descheduled_ns, whichever is longer): it stays when the call is removed.
    double descheduled = 0;
  };
  struct Act {
    StreamKey key;
    double duration = 0, latency = 0, gap = 0;
    bool linked = false;
    std::int64_t next = -1;  // next activity of the same call
  };
  void prepare(RecordedCarry& carry);

  std::vector<HostCall> host_;
  std::vector<GpuActivity> gpu_;
  std::vector<Call> calls_;
  std::vector<Act> acts_;
  std::vector<StreamKey> waits_;
  std::map<StreamKey, std::vector<std::size_t>> unlinked_;  // per stream, in start order
  std::map<std::int32_t, SiteDelta> deltas_;
  double gpu_idle_ns_ = 0;
  double callback_ns_ = 0;
};

// "SYNC001|SYNC003" for a D2H read + sync, "SYNC011" for a blocking H2D copy, "SYNC007" for an explicit
// synchronize, "" when unsure. `previous` is the call before the sync on the same thread (may be null).
std::string guess_rule(const HostCall& sync, const GpuActivity* own_copy, const HostCall* previous,
                       const GpuActivity* previous_copy);

}  // namespace synclint::probe::detail
