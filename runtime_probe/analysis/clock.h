// Times of the analysis as doubles in ns from the first timestamp they were taken from. CUPTI's clock counts
// ns since the epoch (about 1.8e18), where a double resolves only 256 ns, and the GPU model's fits and the
// what-if replay add hundreds to thousands of durations to such times, each sum rounded: a read's modelled
// copy came to end 14.6 us after its sync had returned, and a loop replayed at the epoch was estimated 0.8%
// high (GpuModel.TheEstimatesDoNotDependOnWhereTheClockStarts).
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

namespace synclint::probe {

class RelativeClock {
 public:
  // No time yet (a stream with no work): before every time, those before the origin too.
  static constexpr double kNever = -std::numeric_limits<double>::infinity();

  // `ns` from the origin, the first time asked for.
  double at(std::uint64_t ns) {
    if (!has_origin_) {
      origin_ = ns;
      has_origin_ = true;
    }
    return since_origin(ns);
  }
  // The same once the origin is set (before: from 0).
  double since_origin(std::uint64_t ns) const { return static_cast<double>(static_cast<std::int64_t>(ns - origin_)); }
  // A time from the origin back on CUPTI's clock, to the nearest ns.
  std::uint64_t ns_at(double t) const { return origin_ + static_cast<std::uint64_t>(std::llround(t)); }

 private:
  std::uint64_t origin_ = 0;
  bool has_origin_ = false;
};

}  // namespace synclint::probe
