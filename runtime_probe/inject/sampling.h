// Sampled tracing: when launches and GPU records are traced, and which sites ask for a traced stretch.
// Plain C++ (no CUPTI), driven by the window thread and the blocking-call callbacks of probe.cpp.
#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>
#include <optional>
#include <unordered_map>

namespace synclint::probe::inject {

// Traced stretches of `on` making up `fraction` of the run: on, off (on * (1/fraction - 1)), on... from
// the start; a request turns tracing on for max(`on`, kMinRequest) (or extends a traced stretch to that):
// at once, or, when tracing went off less than kMinOff ago, once it has been off that long. Switching
// CUPTI's launch callbacks and kernel records off (with a forced flush) and on again within about a
// millisecond preceded crashes of a LibTorch program on the H200 (docs/probe.md, run 11); every switch
// that ran without one came at least ~27 ms after the last.
class SampleSchedule {
 public:
  using clock = std::chrono::steady_clock;
  static constexpr std::chrono::milliseconds kMinRequest{400};
  static constexpr std::chrono::milliseconds kMinOff{250};

  SampleSchedule(double fraction, std::chrono::milliseconds on, clock::time_point start);
  bool sampled() const { return fraction_ < 1; }
  bool traced() const { return traced_; }
  // When the state changes next without a request (time_point::max() when never).
  clock::time_point next_change() const { return next_; }
  // Advances to `now`, with a site's request or not; returns the new state when it changed.
  std::optional<bool> update(clock::time_point now, bool request);
  // The state no longer changes (the report is written).
  void stop() { next_ = clock::time_point::max(); }

 private:
  double fraction_;
  std::chrono::milliseconds on_, off_;
  bool traced_ = true;
  bool requested_ = false;     // a request waits for kMinOff to pass
  clock::time_point off_since_ = clock::time_point::min();
  clock::time_point next_;
};

// Per-site bookkeeping of blocking calls while sampling: a site with fewer than kEnoughTraced traced calls
// (never traced, or traced only in the first stretch, which holds the program's start-up) asks for a
// traced stretch after kUntracedBeforeRequest untraced calls, at most kMaxRequests times. Thread-safe.
//
// With `past_start` (SYNCLINT_PROBE_REQUEST_PAST_START=1, experimental), only traced calls made after the
// site's first untraced call count: its first stretch (the program's start-up, a loop's warm-up steps)
// then never spares it a stretch in its steady state. Run 11 on the H200 measured better estimates with it
// and crashes of a LibTorch program when it switched tracing on again within a millisecond (docs/probe.md);
// SampleSchedule::kMinOff now keeps that from happening, which is not yet run on the GPU.
class SiteRequests {
 public:
  static constexpr std::uint32_t kUntracedBeforeRequest = 8;
  static constexpr std::uint32_t kEnoughTraced = 64;
  static constexpr std::uint8_t kMaxRequests = 2;

  explicit SiteRequests(bool past_start = false) : past_start_(past_start) {}
  void set_past_start(bool on) { past_start_ = on; }

  // Counts a blocking call of `site`; true when it should ask for a traced stretch now.
  bool note(std::int32_t site, bool traced);

 private:
  struct State {
    std::uint32_t untraced = 0;  // untraced calls since the last request
    std::uint32_t traced = 0;    // traced calls that count (all, or those after the first untraced one)
    bool seen_untraced = false;
    std::uint8_t requests = 0;
  };
  bool past_start_;
  std::mutex mu_;
  std::unordered_map<std::int32_t, State> sites_;
};

}  // namespace synclint::probe::inject
