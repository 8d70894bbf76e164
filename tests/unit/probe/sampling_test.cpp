// The probe's own time in a recording and sampled recordings: what the replay takes out of the host's gaps
// (the callbacks' time, a blocking call's measured probe time), and stretches traced in full against
// untraced ones, whose calls are scaled from the traced ones (times in us).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>

#include "analysis/analysis.h"
#include "stream_builder.h"

namespace synclint::probe {
namespace {

using testing::StreamBuilder;

constexpr double kSamplingEps = 1e-6;  // ms

// A read traced at the probe's pace: the host spends 10 us between its calls (5 between the copy and the
// sync), of which the probe's callbacks took `callback_us` (EventStream::callback_overhead_ns). K1 (100 us)
// and four 20 us kernels queued behind it, a copy and a sync that waits for them (110 us, returns at 195),
// then the next step's kernel (315).
EventStream traced_read(double callback_us) {
  StreamBuilder b;
  const auto site = b.site("/w/train.py", 42);
  b.kernel(0, 5, 10, 110);
  for (int i = 0; i < 4; ++i) b.kernel(15 + 15 * i, 5, 110 + 20 * i, 130 + 20 * i);
  b.copy_d2h(75, 5, 190, 192, site);
  b.sync(85, 195, site);
  b.kernel(205, 5, 215, 315);
  b.s.callback_overhead_ns = testing::us(callback_us);
  return b.done();
}

TEST(ProbeReplay, TheProbesTimeAroundEachCallComesOutOfTheHostsGaps) {
  const ProbeReport as_recorded = analyze(traced_read(0));
  ASSERT_EQ(as_recorded.sites.size(), 1u);
  EXPECT_NEAR(as_recorded.replay_error, 0.0, 1e-9);
  EXPECT_NEAR(as_recorded.sites[0].host_blocked_ms, 0.110, kSamplingEps);
  EXPECT_NEAR(as_recorded.sites[0].replayed_blocked_ms, 0.110, kSamplingEps);
  EXPECT_EQ(as_recorded.run.callback_overhead_ns, 0u);
  // Without the read the next kernel queues behind the four (190) and ends at 290: 25 us saved.
  EXPECT_NEAR(as_recorded.sites[0].predicted_saving_ms, 0.025, kSamplingEps);

  // 4 us of each gap was the probe's: the launches come at 0, 11, 22, 33 and 44, the copy at 55 and the
  // sync at 61 (5 - 4 after the copy), which waits for the same GPU work (192, + 3 us wake-up) 134 us.
  const ProbeReport r = analyze(traced_read(4));
  ASSERT_EQ(r.sites.size(), 1u);
  EXPECT_EQ(r.run.callback_overhead_ns, 4000u);
  EXPECT_NEAR(r.sites[0].host_blocked_ms, 0.110, kSamplingEps);  // as recorded
  EXPECT_NEAR(r.sites[0].replayed_blocked_ms, 0.134, kSamplingEps);
  // The next kernel's launch at 201 (195 + 10 - 4), its kernel at 211-311, 4 us before the recording's.
  EXPECT_NEAR(r.replay_error, -4.0 / 315, 1e-9);
  // The faster host had hidden more of the read behind the GPU: the kernel still waits for the four and
  // ends at 290, 21 us before the baseline's 311.
  EXPECT_NEAR(r.sites[0].predicted_saving_ms, 0.021, kSamplingEps);
  // More than the gap: the calls follow each other at once, never earlier (the sync at 30, not before).
  EXPECT_NEAR(analyze(traced_read(50)).sites.at(0).replayed_blocked_ms, 0.195 - 0.030, kSamplingEps);
}

// A blocking call's own measured time after it (probe_ns: the site capture) comes out of the gap after it.
TEST(ProbeReplay, ABlockingCallsMeasuredProbeTimeComesOutOfTheGapAfterIt) {
  EventStream s = traced_read(4);
  for (auto& h : s.host)
    if (h.kind == HostCallKind::StreamSynchronize) h.probe_ns = testing::us(3);
  const ProbeReport r = analyze(s);
  // The next kernel's launch at 198 (195 + 10 - 4 - 3), its kernel at 208-308.
  EXPECT_NEAR(r.replay_error, -7.0 / 315, 1e-9);
  EXPECT_NEAR(r.sites.at(0).replayed_blocked_ms, 0.134, kSamplingEps);
  s.callback_overhead_ns = 0;  // uncompensated, the probe's time stays in the replayed timeline
  EXPECT_NEAR(analyze(s).replay_error, 0.0, 1e-9);
}

// One traced step: K (1000 us) then a read (copy + sync) and the next launch 100 us after the sync.
EventStream traced_steps(int steps, std::int32_t* site_out = nullptr) {
  StreamBuilder b;
  const auto site = b.site("/w/train.py", 42);
  if (site_out) *site_out = site;
  double t = 0;
  for (int i = 0; i < steps; ++i) {
    b.kernel(t, 5, t + 10, t + 1010);
    b.copy_d2h(t + 10, 5, t + 1010, t + 1012, site);
    b.sync(t + 20, t + 1015, site);
    t += 1115;
  }
  b.kernel(t, 5, t + 10, t + 1010);
  return b.done();
}

TEST(ProbeSampling, AStretchOfARecordingHoldsWhatStartsInItAndUntracedOnlyItsBlockingCalls) {
  using testing::us;
  EventStream s = traced_steps(3);  // steps at 0, 1115 and 2230 us: kernel, copy, sync each, a last kernel
  s.python_calls.push_back(PythonCall{us(1130), us(2100), 1, 0});
  s.python_calls.push_back(PythonCall{us(2240), us(3300), 1, 0});
  const EventStream traced = stretch_of(s, us(1115), us(2230), true);  // the second step, [from, to)
  ASSERT_EQ(traced.host.size(), 3u);
  EXPECT_EQ(traced.host[0].kind, HostCallKind::Launch);
  EXPECT_EQ(traced.host[2].kind, HostCallKind::StreamSynchronize);
  EXPECT_EQ(traced.gpu.size(), 2u);  // its kernel (1125-2125) and copy (2125-2127) started in it
  ASSERT_EQ(traced.python_calls.size(), 1u);
  EXPECT_EQ(traced.python_calls[0].start_ns, us(1130));
  EXPECT_EQ(traced.run_start_ns, us(1115));
  EXPECT_EQ(traced.run_end_ns, us(2230));
  EXPECT_EQ(traced.sites.size(), s.sites.size());  // site indices keep their meaning
  const EventStream untraced = stretch_of(s, us(1115), us(2230), false);
  ASSERT_EQ(untraced.host.size(), 1u);  // the sync alone
  EXPECT_EQ(untraced.host[0].kind, HostCallKind::StreamSynchronize);
  EXPECT_TRUE(untraced.gpu.empty());
  EXPECT_TRUE(untraced.python_calls.empty());
  EXPECT_TRUE(stretch_of(s, us(5000), us(6000), true).host.empty());  // after the recording
}

TEST(ProbeSampling, UntracedCallsScaleTheWaitsByBlockedTimeAndTheRestPerCall) {
  const ProbeReport traced = analyze(traced_steps(2));
  ASSERT_EQ(traced.sites.size(), 1u);
  const SiteResult t = traced.sites[0];
  ASSERT_EQ(t.calls, 2u);
  ASSERT_NEAR(t.traced_host_blocked_ms, 2 * 0.995, kSamplingEps);  // each sync waited 995 us
  ASSERT_GT(t.predicted_saving_ms, t.wait_saving_ms);       // the read also took its copy and overhead
  // Six more reads at the same site seen in untraced windows (blocking calls only, 900 us each).
  StreamBuilder u;
  const auto site = u.site("/w/train.py", 42);
  for (int i = 0; i < 6; ++i) u.sync(10'000 + i * 1000, 10'900 + i * 1000, site);
  UntracedCalls untraced;
  untraced.add(u.done());
  ProbeReport r = traced;
  r.run.wall_ms = 20;
  add_untraced(r, untraced, 5e6, 20e6);
  ASSERT_EQ(r.sites.size(), 1u);
  const SiteResult& s = r.sites[0];
  EXPECT_EQ(s.calls, 8u);
  EXPECT_EQ(s.traced_calls, 2u);  // what the scaled estimates rest on
  EXPECT_NEAR(s.traced_host_blocked_ms, 1.99, kSamplingEps);
  EXPECT_NEAR(s.host_blocked_ms, 1.99 + 6 * 0.9, kSamplingEps);  // measured, not scaled
  const double per_blocked = (1.99 + 5.4) / 1.99, per_call = 4;  // 7.39 ms blocked / 1.99 traced; 8 calls / 2
  EXPECT_NEAR(s.wait_saving_ms, t.wait_saving_ms * per_blocked, kSamplingEps);
  EXPECT_NEAR(s.gpu_idle_ms, t.gpu_idle_ms * per_blocked, kSamplingEps);
  EXPECT_NEAR(s.predicted_saving_ms, t.wait_saving_ms * per_blocked + (t.predicted_saving_ms - t.wait_saving_ms) * per_call, kSamplingEps);
  EXPECT_DOUBLE_EQ(s.saving_if_removed_ms, s.predicted_saving_ms);
  EXPECT_NEAR(s.share_of_run, s.predicted_saving_ms / 20, 1e-9);
  EXPECT_EQ(r.syncs, traced.syncs + 6);
  EXPECT_NEAR(r.sampled_fraction, 0.25, 1e-12);
  EXPECT_NEAR(r.gpu_idle_ms, traced.gpu_idle_ms * 4, kSamplingEps);  // by time: 20 ms run, 5 ms traced
}

// The traced steps' site, plus six untraced reads there that each waited `wait_us`.
ProbeReport with_untraced_reads(double wait_us) {
  StreamBuilder u;
  const auto site = u.site("/w/train.py", 42);
  for (int i = 0; i < 6; ++i) u.sync(10'000 + i * 4000, 10'000 + i * 4000 + wait_us, site);
  UntracedCalls untraced;
  untraced.add(u.done());
  ProbeReport r = analyze(traced_steps(2));
  add_untraced(r, untraced, 5e6, 30e6);
  return r;
}

TEST(ProbeSampling, WaitsLongerWhileUntracedRaiseTheEstimateWithTheirBlockedTime) {
  // The traced stretch caught the site waiting ~1 ms per read; untraced, the same reads waited 3 ms
  // (the GPU had more queued then). Scaling per call would keep ~1 ms a read; the waits say ~3 ms.
  const SiteResult t = analyze(traced_steps(2)).sites.at(0);
  const double wait_per_blocked_ms = t.wait_saving_ms / t.traced_host_blocked_ms;
  const SiteResult longer = with_untraced_reads(3000).sites.at(0);
  EXPECT_NEAR(longer.wait_saving_ms, wait_per_blocked_ms * (1.99 + 18), kSamplingEps);
  EXPECT_GT(longer.predicted_saving_ms, t.predicted_saving_ms * 4 * 2);  // far more than per call
  EXPECT_LE(longer.wait_saving_ms, longer.host_blocked_ms);              // never more than the waits
  // Untraced reads that waited less lower it the same way.
  const SiteResult shorter = with_untraced_reads(100).sites.at(0);
  EXPECT_NEAR(shorter.wait_saving_ms, wait_per_blocked_ms * (1.99 + 0.6), kSamplingEps);
  EXPECT_LT(shorter.predicted_saving_ms, t.predicted_saving_ms * 4);
}

TEST(ProbeSampling, UntracedWaitsScaleAgainstTheTracedWaitsAsReplayedWithoutTheProbesTime) {
  // The traced read waited 110 us at the probe's pace and 134 us as replayed at the program's; three
  // untraced reads, at the program's pace but for the sync-path callbacks, waited 134 us each.
  const SiteResult t = analyze(traced_read(4)).sites.at(0);
  StreamBuilder u;
  const auto site = u.site("/w/train.py", 42);
  for (int i = 0; i < 3; ++i) u.sync(1000 + i * 400, 1134 + i * 400, site);
  UntracedCalls untraced;
  untraced.add(u.done());
  ProbeReport r = analyze(traced_read(4));
  add_untraced(r, untraced, 0.5e6, 2e6);
  const SiteResult& s = r.sites.at(0);
  EXPECT_NEAR(s.wait_saving_ms, t.wait_saving_ms * 4, kSamplingEps);  // (0.134 + 3 * 0.134) / 0.134, not / 0.110
  EXPECT_NEAR(s.host_blocked_ms, 0.110 + 3 * 0.134, kSamplingEps);
  EXPECT_NEAR(s.replayed_blocked_ms, 4 * 0.134, kSamplingEps);
  EXPECT_NEAR(s.traced_host_blocked_ms, 0.110, kSamplingEps);
}

TEST(ProbeSampling, ASiteSeenOnlyUntracedIsCountedWithoutEstimates) {
  ProbeReport r = analyze(traced_steps(1));
  StreamBuilder u;
  const auto other = u.site("/w/train.py", 50);
  u.sync(10'000, 10'200, other, HostCallKind::DeviceSynchronize, "cudaDeviceSynchronize");
  u.sync(11'000, 11'050, -1);
  u.kernel(12'000, 5, 12'010, 12'020);  // non-blocking calls are not counted
  UntracedCalls untraced;
  untraced.add(u.done());
  const auto syncs = r.syncs;
  add_untraced(r, untraced, 1e6, 2e6);
  ASSERT_EQ(r.sites.size(), 2u);
  const SiteResult* s = nullptr;
  for (const auto& x : r.sites)
    if (x.site.line == 50) s = &x;
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->calls, 1u);
  EXPECT_EQ(s->traced_calls, 0u);
  EXPECT_EQ(s->api, "cudaDeviceSynchronize");
  EXPECT_NEAR(s->host_blocked_ms, 0.2, kSamplingEps);
  EXPECT_EQ(s->predicted_saving_ms, 0.0);
  EXPECT_EQ(r.syncs, syncs + 2);  // the unknown-site sync counts in the totals
  EXPECT_EQ(r.sites[0].site.line, 42u);  // still ranked first: it has an estimate
}

TEST(ProbeSampling, AnUntracedStretchIsNotAnIdleGap) {
  // Two traced stretches with an untraced second between them: the GPU was not observed there.
  StreamBuilder b;
  b.kernel(0, 5, 10, 1010);
  b.kernel(1'000'000, 5, 1'000'010, 1'001'010);
  const EventStream s = b.done();
  Accumulator whole;
  whole.consume(s);
  EXPECT_NEAR(whole.finish({}).gpu_idle_ms, 999.0, kSamplingEps);
  Accumulator sampled;
  sampled.exclude(testing::us(2000), testing::us(999000));
  sampled.consume(s);
  EXPECT_NEAR(sampled.finish({}).gpu_idle_ms, 0.0, kSamplingEps);
}

// A GPU-bound loop (a 300 us kernel a step, launched 5 us after the last read returned, then its read: a
// 4-byte copy and a sync that waits for the kernel), steps [from, to) of it.
EventStream gpu_bound_steps(int from, int to) {
  StreamBuilder b;
  const std::int32_t site = b.site("train.py", 42);
  for (int i = from; i < to; ++i) {
    const double t = 320.0 * i;
    b.kernel(t, 5, t + 10, t + 310);
    b.copy_d2h(t + 6, 3, t + 310, t + 312, site);
    b.sync(t + 10, t + 315, site);
  }
  return b.done();
}

// Two stretches of that loop traced, the steps between them untraced: the what-if of the removed reads,
// its host far ahead of the GPU's backlog, must not carry that lead across the untraced span, where the
// traced stream has neither calls nor GPU work, and claim the span. The two stretches in one accumulator
// give what each gives alone (before, 8 times as much: the lead ran the backlog in the span's host time).
TEST(ProbeSampling, AWhatIfAheadOfTheBaselineCarriesNoLeadAcrossAnUntracedSpan) {
  EventStream both = gpu_bound_steps(0, 100);
  const EventStream later = gpu_bound_steps(400, 500);
  both.host.insert(both.host.end(), later.host.begin(), later.host.end());
  both.gpu.insert(both.gpu.end(), later.gpu.begin(), later.gpu.end());
  both.run_end_ns = later.run_end_ns;
  Accumulator sampled;
  sampled.exclude(testing::us(320.0 * 100), testing::us(320.0 * 400));
  sampled.consume(both);
  const ProbeReport r = sampled.finish({});
  const ProbeReport first = analyze(gpu_bound_steps(0, 100)), second = analyze(later);
  ASSERT_EQ(r.sites.size(), 1u);
  ASSERT_EQ(first.sites.size(), 1u);
  ASSERT_EQ(second.sites.size(), 1u);
  const double alone = first.sites[0].predicted_saving_ms + second.sites[0].predicted_saving_ms;
  ASSERT_GT(alone, 0.0);
  EXPECT_NEAR(r.sites[0].predicted_saving_ms, alone, 0.01 * alone);
  EXPECT_NEAR(r.sites[0].wait_saving_ms, first.sites[0].wait_saving_ms + second.sites[0].wait_saving_ms, 0.01 * alone);
  // Split into windows anywhere, the same.
  Accumulator windows;
  windows.exclude(testing::us(320.0 * 100), testing::us(320.0 * 400));
  const std::uint64_t cut = testing::us(320.0 * 50 + 100);
  EventStream a = both, c = both;
  std::erase_if(a.host, [&](const HostCall& h) { return h.start_ns >= cut; });
  std::erase_if(a.gpu, [&](const GpuActivity& g) { return g.start_ns >= cut; });
  std::erase_if(c.host, [&](const HostCall& h) { return h.start_ns < cut; });
  std::erase_if(c.gpu, [&](const GpuActivity& g) { return g.start_ns < cut; });
  windows.consume(a);
  windows.consume(c);
  EXPECT_NEAR(windows.finish({}).sites[0].predicted_saving_ms, r.sites[0].predicted_saving_ms, 1e-6);
}

}  // namespace
}  // namespace synclint::probe
