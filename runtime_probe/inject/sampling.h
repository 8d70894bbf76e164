// Sampled tracing: when launches and GPU records are traced, and which sites ask for a traced stretch.
// Plain C++ (no CUPTI), driven by the window thread and the blocking-call callbacks of probe.cpp.
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

namespace synclint::probe::inject {

// Traced stretches of `on` making up `fraction` of the run: on (the first may be given its own length),
// off (on * (1/fraction - 1)), on... from the start; a request turns tracing on for max(`on`, kMinRequest) (or extends a traced stretch to that).
//
// A stretch's records are flushed kFlushDelay after it ends, once the kernels launched in it have had time
// to finish and its last buffer is complete, by CUPTI's default flush (buffers whose records are all
// complete, full or not), which CUPTI documents for regular use from another thread; a forced flush, which
// also hands back kernels still running, is for the end of the session. Tracing goes on again (by the
// period or a request) only once it has been off for kMinOff, after that flush. (The end of a stretch
// switched on again mid-run is where CUPTI crashed LibTorch programs on the H200, with forced and default
// flushes alike, until the probe turned CUPTI's per-thread buffers off: docs/probe.md, "A crash in CUPTI".)
class SampleSchedule {
 public:
  using clock = std::chrono::steady_clock;
  static constexpr std::chrono::milliseconds kMinRequest{400};
  static constexpr std::chrono::milliseconds kMinOff{250};
  static constexpr std::chrono::milliseconds kFlushDelay{200};
  static_assert(kFlushDelay < kMinOff, "a stretch's records are flushed before the next stretch begins");

  // `first`: the length of the first stretch, which starts with the probe (default `on`).
  SampleSchedule(double fraction, std::chrono::milliseconds on, clock::time_point start,
                 std::optional<std::chrono::milliseconds> first = std::nullopt);
  bool sampled() const { return fraction_ < 1; }
  bool traced() const { return traced_; }
  // When the state changes next without a request (time_point::max() when never).
  clock::time_point next_change() const { return next_; }
  // When the forced flush of the stretch that ended last is due (time_point::max() when none is pending).
  clock::time_point flush_due() const { return flush_due_; }
  // Advances to `now`, with a site's request or not; returns the new state when it changed.
  std::optional<bool> update(clock::time_point now, bool request);
  // True, once, when the forced flush of the stretch that ended last is due at `now`.
  bool take_flush(clock::time_point now);
  // The state no longer changes (the report is written).
  void stop() { next_ = flush_due_ = clock::time_point::max(); }
  // While traced: the stretch goes on at least until `until`.
  void extend(clock::time_point until) {
    if (traced_ && sampled() && next_ != clock::time_point::max()) next_ = std::max(next_, until);
  }

 private:
  double fraction_;
  std::chrono::milliseconds on_, off_;
  bool traced_ = true;
  bool requested_ = false;     // a request waits for kMinOff to pass
  clock::time_point off_since_ = clock::time_point::min();
  clock::time_point next_;
  clock::time_point flush_due_ = clock::time_point::max();
};

// Per-site bookkeeping of blocking calls while sampling: a site with fewer than kEnoughTraced traced calls
// that count asks for a traced stretch after kUntracedBeforeRequest untraced calls, at most kMaxRequests
// times, and not again until a stretch has begun since it asked (a site reading 22 times a step would
// otherwise spend both requests within one step, on one stretch that may come too late for it: on the
// H200, a C++ norms loop got no traced call at all). Thread-safe.
//
// Only traced calls made after the site's first untraced call count: a site traced only in its first
// stretch (the program's start-up, a loop's warm-up steps, where a read's host cost hides behind the GPU)
// then asks for a stretch in its steady state.
class SiteRequests {
 public:
  static constexpr std::uint32_t kUntracedBeforeRequest = 8;
  static constexpr std::uint32_t kEnoughTraced = 64;
  static constexpr std::uint8_t kMaxRequests = 2;

  // Counts a blocking call of `site`; true when it should ask for a traced stretch now.
  bool note(std::int32_t site, bool traced);
  // A traced stretch has begun (the window thread, at each switch on).
  void stretch_began() { stretches_.fetch_add(1, std::memory_order_relaxed); }

 private:
  struct State {
    std::uint32_t untraced = 0;  // untraced calls since the last request
    std::uint32_t traced = 0;    // traced calls that count (those after the first untraced one)
    bool seen_untraced = false;
    std::uint8_t requests = 0;
    std::uint64_t asked_at = 0;  // stretches begun when it last asked
  };
  std::atomic<std::uint64_t> stretches_{0};
  std::mutex mu_;
  std::unordered_map<std::int32_t, State> sites_;
};

// The launch keys seen (HostCall::launch_key: a kernel and its grid, a copy's kind and size), approximately:
// a set of 64K bits, so that two keys may share one, and how many calls in a row brought no new key. With
// SYNCLINT_PROBE_GPU_RECORDS=first the GPU model learns only from the first stretch, so that stretch goes on
// until the program has shown its GPU work: as many calls without a new key (or a new blocking call site)
// as it took to see the last new one, and at least kSettled. A program's phases (set-up, a loop, another
// loop) each bring new keys; a phase that repeats within the calls seen so far has then shown itself
// again, where a fixed count ends inside the first loop when a later one (another mode, an evaluation)
// has work of its own. Lock-free: the program's threads call saw().
class KeySettling {
 public:
  static constexpr std::uint64_t kSettled = 1000;
  void saw(std::uint64_t key);
  // The key of a blocking call's site: a read the program had not made before is new work too (it brings
  // the syncs that the model fits its work to, and the copies of the read).
  static std::uint64_t site_key(std::int32_t site) {
    return (0x53594e43ull << 32) ^ static_cast<std::uint32_t>(site) ^ 0x8000'0000ull;
  }
  bool settled() const {
    const std::uint64_t last = last_new_at_.load(std::memory_order_relaxed);
    return calls_.load(std::memory_order_relaxed) - last >= std::max(kSettled, last);
  }
  // Calls since the last new key. The last new key's count is read first: calls_ had reached it by then.
  std::uint64_t since_new() const {
    const std::uint64_t last = last_new_at_.load(std::memory_order_relaxed);
    return calls_.load(std::memory_order_relaxed) - last;
  }
  std::uint64_t keys() const { return keys_.load(std::memory_order_relaxed); }
  std::uint64_t calls() const { return calls_.load(std::memory_order_relaxed); }

 private:
  std::array<std::atomic<std::uint64_t>, 1024> bits_{};
  // last_new_at_: calls_ after the call that brought the last new key.
  std::atomic<std::uint64_t> calls_{0}, last_new_at_{0}, keys_{0};
};

}  // namespace synclint::probe::inject
