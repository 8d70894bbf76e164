#include "sampling.h"

#include <algorithm>
#include <iterator>

namespace synclint::probe::inject {

SampleSchedule::SampleSchedule(double fraction, std::chrono::milliseconds on, clock::time_point start,
                               std::optional<std::chrono::milliseconds> first)
    : fraction_(std::clamp(fraction, 1e-6, 1.0)),
      on_(on),
      off_(std::chrono::milliseconds(
          static_cast<std::int64_t>(static_cast<double>(on.count()) * (1 / fraction_ - 1)))),
      next_(fraction_ < 1 ? start + first.value_or(on) : clock::time_point::max()) {}

std::optional<bool> SampleSchedule::update(clock::time_point now, bool request) {
  if (!sampled() || next_ == clock::time_point::max()) return std::nullopt;
  const auto request_until = now + std::max(on_, std::chrono::milliseconds(kMinRequest));
  if (request && traced_) {
    next_ = std::max(next_, request_until);
    return std::nullopt;
  }
  if (request || (requested_ && now >= next_)) {
    if (now < off_since_ + kMinOff) {  // too soon after switching off: wait, then serve it
      requested_ = true;
      next_ = std::min(next_, off_since_ + kMinOff);
      return std::nullopt;
    }
    requested_ = false;
    traced_ = true;
    next_ = request_until;
    return true;
  }
  if (now < next_) return std::nullopt;
  if (!traced_ && now < off_since_ + kMinOff) {  // a period shorter than kMinOff off: wait
    next_ = off_since_ + kMinOff;
    return std::nullopt;
  }
  traced_ = !traced_;
  next_ = now + (traced_ ? on_ : off_);
  if (!traced_) {
    off_since_ = now;
    flush_due_ = now + kFlushDelay;
  }
  return traced_;
}

bool SampleSchedule::take_flush(clock::time_point now) {
  if (flush_due_ == clock::time_point::max() || now < flush_due_) return false;
  flush_due_ = clock::time_point::max();
  return true;
}

bool SiteRequests::note(std::int32_t site, bool traced) {
  std::lock_guard lock(mu_);
  State& s = sites_[site];
  if (traced) {
    if (s.seen_untraced) ++s.traced;
    return false;
  }
  s.seen_untraced = true;
  const std::uint64_t stretches = stretches_.load(std::memory_order_relaxed);
  if (s.requests > 0 && s.asked_at == stretches) return false;  // its last request is not served yet
  if (s.traced >= kEnoughTraced || s.requests >= kMaxRequests || ++s.untraced < kUntracedBeforeRequest) return false;
  s.untraced = 0;
  ++s.requests;
  s.asked_at = stretches;
  return true;
}

void KeySettling::saw(std::uint64_t key) {
  const std::uint64_t bit = (key * 0x9e3779b97f4a7c15ull) >> 48;  // 16 bits
  const std::uint64_t mask = std::uint64_t{1} << (bit & 63);
  const std::uint64_t n = calls_.fetch_add(1, std::memory_order_relaxed) + 1;
  if ((bits_[bit >> 6].fetch_or(mask, std::memory_order_relaxed) & mask) == 0) {
    last_new_at_.store(n, std::memory_order_relaxed);
    keys_.fetch_add(1, std::memory_order_relaxed);
  }
}

}  // namespace synclint::probe::inject
