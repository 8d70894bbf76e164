// Sampled tracing: the schedule of traced stretches and the per-site requests for one.
#include "sampling.h"

#include <gtest/gtest.h>

#include <iterator>
#include <vector>

namespace synclint::probe::inject {
namespace {

using namespace std::chrono_literals;
using clock = SampleSchedule::clock;

TEST(SampleSchedule, TracesOneStretchPerPeriodFromTheStart) {
  const clock::time_point t0{};
  SampleSchedule s(0.05, 100ms, t0);
  EXPECT_TRUE(s.sampled());
  EXPECT_TRUE(s.traced());
  EXPECT_EQ(s.next_change(), t0 + 100ms);
  EXPECT_EQ(s.update(t0 + 50ms, false), std::nullopt);
  EXPECT_EQ(s.update(t0 + 100ms, false), std::optional<bool>(false));
  EXPECT_EQ(s.next_change(), t0 + 2000ms);  // 100 ms on, 1900 ms off: 5%
  EXPECT_EQ(s.update(t0 + 1999ms, false), std::nullopt);
  EXPECT_EQ(s.update(t0 + 2000ms, false), std::optional<bool>(true));
  EXPECT_EQ(s.next_change(), t0 + 2100ms);
}

TEST(SampleSchedule, ARequestTracesAtOnceForAtLeast400Ms) {
  const clock::time_point t0{};
  SampleSchedule s(0.05, 100ms, t0);
  ASSERT_EQ(s.update(t0 + 100ms, false), std::optional<bool>(false));
  EXPECT_EQ(s.update(t0 + 500ms, true), std::optional<bool>(true));
  EXPECT_TRUE(s.traced());
  EXPECT_EQ(s.next_change(), t0 + 900ms);
  // A request while traced extends the stretch, without a change of state.
  EXPECT_EQ(s.update(t0 + 800ms, true), std::nullopt);
  EXPECT_EQ(s.next_change(), t0 + 1200ms);
  EXPECT_EQ(s.update(t0 + 1200ms, false), std::optional<bool>(false));
  EXPECT_EQ(s.next_change(), t0 + 3100ms);
}

TEST(SampleSchedule, TheDefaultTracesOneSecondInAHundredAndRequestsOneStretch) {
  const clock::time_point t0{};
  SampleSchedule s(0.01, 1000ms, t0);
  EXPECT_EQ(s.update(t0 + 1000ms, false), std::optional<bool>(false));
  EXPECT_EQ(s.next_change(), t0 + 100000ms);
  EXPECT_EQ(s.update(t0 + 5000ms, true), std::optional<bool>(true));
  EXPECT_EQ(s.next_change(), t0 + 6000ms);
  EXPECT_EQ(s.update(t0 + 6000ms, false), std::optional<bool>(false));
  EXPECT_EQ(s.next_change(), t0 + 105000ms);
}

TEST(SampleSchedule, TheFirstStretchCanHaveALengthOfItsOwn) {
  const clock::time_point t0{};
  SampleSchedule s(0.01, 1000ms, t0, 250ms);
  EXPECT_TRUE(s.traced());
  EXPECT_EQ(s.next_change(), t0 + 250ms);
  EXPECT_EQ(s.update(t0 + 250ms, false), std::optional<bool>(false));
  EXPECT_EQ(s.next_change(), t0 + 99250ms);  // then the period as usual: 99 s off, 1 s on
  EXPECT_EQ(s.update(t0 + 99250ms, false), std::optional<bool>(true));
  EXPECT_EQ(s.next_change(), t0 + 100250ms);
  // Full tracing has no first stretch to end.
  EXPECT_EQ(SampleSchedule(1.0, 1000ms, t0, 250ms).next_change(), clock::time_point::max());
}

TEST(SampleSchedule, ARequestRightAfterTracingWentOffWaitsUntilItHasBeenOffAQuarterSecond) {
  const clock::time_point t0{};
  SampleSchedule s(0.01, 1000ms, t0);
  ASSERT_EQ(s.update(t0 + 1000ms, false), std::optional<bool>(false));
  // A site asks 1 ms later: tracing stays off until 1250 ms, then the requested stretch starts.
  EXPECT_EQ(s.update(t0 + 1001ms, true), std::nullopt);
  EXPECT_FALSE(s.traced());
  EXPECT_EQ(s.next_change(), t0 + 1000ms + SampleSchedule::kMinOff);
  EXPECT_EQ(s.update(t0 + 1100ms, true), std::nullopt);  // asking again changes nothing
  EXPECT_EQ(s.next_change(), t0 + 1250ms);
  EXPECT_EQ(s.update(t0 + 1249ms, false), std::nullopt);
  EXPECT_EQ(s.update(t0 + 1250ms, false), std::optional<bool>(true));
  EXPECT_EQ(s.next_change(), t0 + 2250ms);
  EXPECT_EQ(s.update(t0 + 2250ms, false), std::optional<bool>(false));
  EXPECT_EQ(s.next_change(), t0 + 101250ms);  // then the period as usual
  // A request a full quarter second after switching off is served at once.
  EXPECT_EQ(s.update(t0 + 2500ms, true), std::optional<bool>(true));
}

// A stretch's kernel records are force-flushed only once the kernels launched in it have had time to
// finish, and before tracing goes on again.
TEST(SampleSchedule, AStretchIsFlushedTwoHundredMsAfterItEndsAndBeforeTheNextBegins) {
  const clock::time_point t0{};
  SampleSchedule s(0.01, 1000ms, t0);
  EXPECT_EQ(s.flush_due(), clock::time_point::max());  // nothing to flush while the first stretch runs
  EXPECT_FALSE(s.take_flush(t0 + 500ms));
  ASSERT_EQ(s.update(t0 + 1000ms, false), std::optional<bool>(false));
  EXPECT_EQ(s.flush_due(), t0 + 1000ms + SampleSchedule::kFlushDelay);
  EXPECT_FALSE(s.take_flush(t0 + 1001ms));  // not right after the switch-off
  EXPECT_FALSE(s.take_flush(t0 + 1199ms));
  EXPECT_TRUE(s.take_flush(t0 + 1200ms));
  EXPECT_FALSE(s.take_flush(t0 + 1300ms));  // once
  EXPECT_EQ(s.flush_due(), clock::time_point::max());
  // A requested stretch ends the same way.
  ASSERT_EQ(s.update(t0 + 2000ms, true), std::optional<bool>(true));
  ASSERT_EQ(s.update(t0 + 3000ms, false), std::optional<bool>(false));
  EXPECT_EQ(s.flush_due(), t0 + 3200ms);
  s.stop();  // the final cut flushes everything
  EXPECT_EQ(s.flush_due(), clock::time_point::max());
}

TEST(SampleSchedule, APeriodShorterThanAQuarterSecondOffWaitsForIt) {
  const clock::time_point t0{};
  SampleSchedule s(0.5, 100ms, t0);  // 100 ms on, 100 ms off asked for
  ASSERT_EQ(s.update(t0 + 100ms, false), std::optional<bool>(false));
  EXPECT_EQ(s.next_change(), t0 + 200ms);
  EXPECT_EQ(s.update(t0 + 200ms, false), std::nullopt);
  EXPECT_EQ(s.next_change(), t0 + 100ms + SampleSchedule::kMinOff);
  EXPECT_TRUE(s.take_flush(t0 + 300ms));
  EXPECT_EQ(s.update(t0 + 350ms, false), std::optional<bool>(true));
  EXPECT_EQ(s.next_change(), t0 + 450ms);
}

TEST(SampleSchedule, FullTracingAndAStoppedScheduleNeverChange) {
  const clock::time_point t0{};
  SampleSchedule full(1.0, 100ms, t0);
  EXPECT_FALSE(full.sampled());
  EXPECT_EQ(full.next_change(), clock::time_point::max());
  EXPECT_EQ(full.update(t0 + 10s, true), std::nullopt);
  EXPECT_TRUE(full.traced());
  SampleSchedule s(0.25, 100ms, t0);
  s.stop();
  EXPECT_EQ(s.update(t0 + 10s, false), std::nullopt);
  EXPECT_EQ(s.update(t0 + 10s, true), std::nullopt);
}

TEST(SiteRequests, ANeverTracedSiteAsksAfterEightUntracedCallsAtMostTwice) {
  SiteRequests r;
  int asked = 0;
  for (int call = 1; call <= 100; ++call)
    if (r.note(7, false)) {
      ++asked;
      EXPECT_EQ(call % 8, 0) << call;
      r.stretch_began();  // served at once (the site did not run in it)
    }
  EXPECT_EQ(asked, 2);
}

// 22 reads a step: the first 8 untraced ones ask; the next ones wait for that stretch to begin, then count
// afresh, so that the second request falls where the site runs after the first stretch.
TEST(SiteRequests, ASiteAsksAgainOnlyOnceItsRequestIsServed) {
  SiteRequests r;
  for (int call = 1; call < 8; ++call) EXPECT_FALSE(r.note(5, false));
  EXPECT_TRUE(r.note(5, false));
  for (int call = 0; call < 100; ++call) EXPECT_FALSE(r.note(5, false)) << "asked twice for one stretch";
  r.stretch_began();
  for (int call = 1; call < 8; ++call) EXPECT_FALSE(r.note(5, false));
  EXPECT_TRUE(r.note(5, false));  // the stretch missed it: the second request
  r.stretch_began();
  for (int call = 0; call < 100; ++call) EXPECT_FALSE(r.note(5, false));  // at most kMaxRequests
  // A stretch begun for another site serves this one's pending request too.
  for (int call = 1; call < 8; ++call) EXPECT_FALSE(r.note(6, false));
  EXPECT_TRUE(r.note(6, false));
  EXPECT_FALSE(r.note(6, false));
  r.stretch_began();
  for (int call = 1; call < 8; ++call) EXPECT_FALSE(r.note(6, false));
  EXPECT_TRUE(r.note(6, false));
}

TEST(SiteRequests, ASiteTracedEnoughNeverAsks) {
  SiteRequests r;
  EXPECT_FALSE(r.note(3, false));  // traced calls count once the site has run untraced
  for (std::uint32_t call = 0; call < SiteRequests::kEnoughTraced; ++call) EXPECT_FALSE(r.note(3, true));
  for (int call = 0; call < 50; ++call) EXPECT_FALSE(r.note(3, false));
  // Sites are counted apart.
  for (int call = 1; call < 8; ++call) EXPECT_FALSE(r.note(4, false));
  EXPECT_TRUE(r.note(4, false));
}

TEST(SiteRequests, ASiteTracedOnlyInItsFirstStretchAsksOnceItRunsUntraced) {
  // 22 reads a step caught by the first stretch for hundreds of warm-up steps: plenty traced, but all from
  // its start, so it asks for one stretch in its steady state.
  SiteRequests past;
  for (int call = 0; call < 5000; ++call) EXPECT_FALSE(past.note(9, true));
  for (int call = 1; call < 8; ++call) EXPECT_FALSE(past.note(9, false));
  EXPECT_TRUE(past.note(9, false));
  for (std::uint32_t call = 0; call < SiteRequests::kEnoughTraced; ++call) EXPECT_FALSE(past.note(9, true));
  for (int call = 0; call < 50; ++call) EXPECT_FALSE(past.note(9, false));  // that stretch was enough
}

TEST(SiteRequests, ASiteTracedOnlyAFewTimesAtStartUpStillAsks) {
  SiteRequests r;
  for (int call = 0; call < 5; ++call) EXPECT_FALSE(r.note(9, true));
  for (int call = 1; call < 8; ++call) EXPECT_FALSE(r.note(9, false));
  EXPECT_TRUE(r.note(9, false));
}

TEST(KeySettling, SettlesAfterAThousandLaunchesWithoutANewKey) {
  KeySettling k;
  for (std::uint64_t i = 0; i < 50; ++i) k.saw(1000 + i * 7919);  // a loop's kernels, first seen
  EXPECT_EQ(k.keys(), 50u);
  EXPECT_EQ(k.since_new(), 0u);
  for (std::uint64_t step = 0; step < 19; ++step)
    for (std::uint64_t i = 0; i < 50; ++i) k.saw(1000 + i * 7919);
  EXPECT_EQ(k.since_new(), 950u);
  EXPECT_FALSE(k.settled());
  for (std::uint64_t i = 0; i < 50; ++i) k.saw(1000 + i * 7919);
  EXPECT_TRUE(k.settled());
  EXPECT_EQ(k.keys(), 50u);
  EXPECT_EQ(k.calls(), 1050u);
}

TEST(KeySettling, AKeyFirstSeenLateNeedsAsManyCallsAgain) {
  // A program's first loop (another mode, an evaluation) shows its own kernel after 5000 calls of the
  // first: the first stretch goes on for 5001 more calls, through a repetition of both.
  KeySettling k;
  for (std::uint64_t i = 0; i < 5000; ++i) k.saw(1000 + (i % 50) * 7919);
  EXPECT_TRUE(k.settled());  // settled inside the first loop, as a fixed count would stay
  k.saw(424242);             // the later loop's kernel starts the count again, now to 5001
  EXPECT_EQ(k.since_new(), 0u);
  EXPECT_EQ(k.keys(), 51u);
  for (std::uint64_t i = 0; i < 5000; ++i) k.saw(1000 + (i % 50) * 7919);
  EXPECT_EQ(k.since_new(), 5000u);
  EXPECT_FALSE(k.settled());
  k.saw(424242);
  EXPECT_TRUE(k.settled());
}

TEST(SampleSchedule, ExtendKeepsAStretchOnOnlyWhileItIsTraced) {
  const auto t0 = clock::now();
  SampleSchedule s(0.01, 1000ms, t0, 100ms);
  s.extend(t0 + 300ms);
  EXPECT_EQ(s.next_change(), t0 + 300ms);
  s.extend(t0 + 200ms);  // never shortened
  EXPECT_EQ(s.next_change(), t0 + 300ms);
  EXPECT_EQ(s.update(t0 + 300ms, false), std::optional<bool>(false));
  const auto off_until = s.next_change();
  s.extend(t0 + 400s);  // off: nothing to extend
  EXPECT_EQ(s.next_change(), off_until);
}

}  // namespace
}  // namespace synclint::probe::inject
