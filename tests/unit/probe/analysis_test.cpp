// Timeline analysis on synthetic streams whose answers can be computed by hand (times in us).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>

#include "analysis/analysis.h"
#include "analysis/replay.h"
#include "stream_builder.h"

namespace synclint::probe {
namespace {

using testing::StreamBuilder;

const SiteResult* find_site(const ProbeReport& r, std::uint32_t line) {
  for (const auto& s : r.sites)
    if (s.site.line == line) return &s;
  return nullptr;
}

constexpr double kEps = 1e-6;  // ms

// K1 runs 1000 us; the host reads a value (D2H copy + stream sync) at 20 us and waits until the GPU is
// done (1012 us, returns at 1015); then `host_after` us of host work before launching K2 (1000 us).
EventStream one_read(double host_after) {
  StreamBuilder b;
  const auto site = b.site("/w/train.py", 42);
  b.kernel(0, 5, 10, 1010);
  b.copy_d2h(10, 5, 1010, 1012, site);
  b.sync(20, 1015, site);
  const double launch = 1015 + host_after;
  b.kernel(launch, 5, launch + 10, launch + 1010);
  return b.done();
}

TEST(ProbeAnalysis, SyncOnBusyGpuBlocksForTheRemainingWorkAndLeavesABubble) {
  const ProbeReport r = analyze(one_read(100));
  ASSERT_EQ(r.sites.size(), 1u);
  const SiteResult& s = r.sites[0];
  EXPECT_EQ(s.calls, 1u);
  EXPECT_EQ(s.api, "cudaStreamSynchronize");
  EXPECT_EQ(s.rule_guess, "SYNC001|SYNC003");
  EXPECT_NEAR(s.host_blocked_ms, 0.995, kEps);  // 992 us of remaining GPU work + 3 us wake-up
  EXPECT_NEAR(s.gpu_idle_ms, 0.113, kEps);      // GPU done at 1012, next kernel starts at 1125
  EXPECT_NEAR(r.gpu_idle_ms, 0.113, kEps);
  EXPECT_EQ(r.syncs, 1u);
  EXPECT_NEAR(r.run.wall_ms, 2.125, kEps);
  EXPECT_NEAR(r.replay_error, 0.0, 1e-9);  // the baseline replay reproduces the recording
}

TEST(ProbeAnalysis, SavingEqualsTheBubbleWhenHostWorkAfterTheSyncIsShorterThanGpuWork) {
  const ProbeReport r = analyze(one_read(100));
  ASSERT_EQ(r.sites.size(), 1u);
  // Without the wait, K2 is queued behind the copy and runs right after it: the 113 us bubble is gone.
  EXPECT_NEAR(r.sites[0].wait_saving_ms, 0.113, kEps);
  // The ranked estimate (and the share) is the read removed entirely: the bubble and the 2 us copy.
  EXPECT_NEAR(r.sites[0].predicted_saving_ms, 0.115, kEps);
  EXPECT_NEAR(r.sites[0].share_of_run, 0.115 / 2.125, 1e-9);
}

TEST(ProbeAnalysis, SavingIsTheWaitWhenHostWorkAfterTheSyncIsLonger) {
  const ProbeReport r = analyze(one_read(2000));
  ASSERT_EQ(r.sites.size(), 1u);
  // The host is the critical path: only the 995 us wait minus the sync's own overhead (the default
  // 4 us, since no call of it was shorter) is saved; the GPU bubble (2013 us) is larger.
  // The bubble (1012 .. 3025) is attributed for at most as long as the sync had waited when the GPU
  // drained (20 .. 1012): the rest is the host's own work after the sync.
  EXPECT_NEAR(r.sites[0].gpu_idle_ms, 0.992, kEps);
  EXPECT_NEAR(r.gpu_idle_ms, 2.013, kEps);
  EXPECT_NEAR(r.sites[0].wait_saving_ms, 0.991, kEps);
  // Removing the read entirely also removes the sync's overhead and the 5 us copy call before it.
  EXPECT_NEAR(r.sites[0].saving_if_removed_ms, 1.000, kEps);
}

// A slow launch call (30 us, as a first launch or a copy call can take) inside which the kernel before its
// kernel ended: that kernel was not queued behind the earlier one, which held nothing up, and the idle
// between them is the launch call's. Without the read, K2 and K3 queue behind K1 and run back to back:
// K1, K2, K3 end at 1010 + 10 + 100 = 1120 against the recorded 1161. (Taken as queued, K3 kept its
// recorded 21 us behind K2 in every replay, and a loop whose read left a backlog over such launches had
// its saving estimated at a fourteenth.)
TEST(ProbeAnalysis, WorkBeforeASlowLaunchThatEndedInsideTheCallHoldsNothingUpInTheReplay) {
  StreamBuilder b;
  const auto site = b.site("/w/train.py", 42);
  b.kernel(0, 5, 10, 1010);                 // K1
  b.copy_d2h(10, 5, 1010, 1012, site);
  b.sync(20, 1015, site);
  b.kernel(1020, 5, 1030, 1040);            // K2
  b.kernel(1030, 30, 1061, 1161);           // K3: its launch call 1030-1060, K2 ended at 1040 inside it
  const ProbeReport r = analyze(b.done());
  ASSERT_EQ(r.sites.size(), 1u);
  EXPECT_NEAR(r.replay_error, 0.0, 1e-9);
  EXPECT_NEAR(r.sites[0].predicted_saving_ms, 0.041, kEps);
}

// The same read on an overloaded host: the thread is descheduled inside the sync and returns 5 ms after
// the GPU was done, not 3 us. Those 5 ms are the host's lot with or without the sync (a preemption lasts a
// millisecond or more, a wake-up a few us), so removing the read saves the copy call, the wait and the
// longest wake-up, not the rest of the late return (before: 6.000 ms, the whole late return as saving).
TEST(ProbeAnalysis, ASyncDescheduledPastTheGpuKeepsThatTimeWhenRemoved) {
  StreamBuilder b;
  const auto site = b.site("/w/train.py", 42);
  b.kernel(0, 5, 10, 1010);
  b.copy_d2h(10, 5, 1010, 1012, site);
  b.sync(20, 6015, site);  // the GPU done at 1012
  b.kernel(8015, 5, 8025, 9025);
  const ProbeReport r = analyze(b.done());
  ASSERT_EQ(r.sites.size(), 1u);
  EXPECT_NEAR(r.sites[0].host_blocked_ms, 5.995, kEps);  // what the host measured, as recorded
  const double descheduled = 5.003 - detail::kMaxWakeNs / 1e6;  // the return beyond the longest wake-up
  EXPECT_NEAR(r.sites[0].saving_if_removed_ms, 0.005 + 5.995 - descheduled, kEps);  // 1.197
  EXPECT_NEAR(r.sites[0].wait_saving_ms, 5.995 - 0.004 - descheduled, kEps);         // the 4 us overhead kept
  EXPECT_NEAR(r.replay_error, 0.0, 1e-9);
}

// A read whose thread waited 150 us for a CPU inside its sync, measured (descheduled_ns): it returned 153 us
// after the GPU was done, within what a slow wake-up could take, so only the measurement tells. Those
// 150 us stay when the read is removed (without the measurement, all 1.150 ms counted as saving).
TEST(ProbeAnalysis, AMeasuredWaitForACpuInsideASyncStaysWhenItIsRemoved) {
  StreamBuilder b;
  const auto site = b.site("/w/train.py", 42);
  b.kernel(0, 5, 10, 1010);
  b.copy_d2h(10, 5, 1010, 1012, site);
  b.sync(20, 1165, site).descheduled_ns = testing::us(150);
  b.kernel(3165, 5, 3175, 4175);  // after 2 ms of host work: the host is the critical path
  const ProbeReport r = analyze(b.done());
  ASSERT_EQ(r.sites.size(), 1u);
  EXPECT_NEAR(r.sites[0].host_blocked_ms, 1.145, kEps);
  EXPECT_NEAR(r.sites[0].saving_if_removed_ms, 0.005 + 1.145 - 0.150, kEps);
  EXPECT_NEAR(r.replay_error, 0.0, 1e-9);
}

// one_read with the Python call that made the read timed: it starts 2 us before the copy call and
// returns 10 us after the sync; 5 us of it lie between the copy and the sync.
EventStream one_timed_read(double host_after) {
  EventStream s = one_read(host_after);
  s.python_calls.push_back(PythonCall{testing::us(8), testing::us(1025), 1, 0});
  return s;
}

TEST(ProbeAnalysis, ARemovedReadTakesItsPythonCallAlongWhenTheHostIsTheCriticalPath) {
  const ProbeReport plain = analyze(one_read(2000));
  const ProbeReport timed = analyze(one_timed_read(2000));
  ASSERT_EQ(timed.sites.size(), 1u);
  // 1000 us of CUDA calls as before, and the call's 2 + 5 + 10 us outside them.
  EXPECT_NEAR(plain.sites[0].saving_if_removed_ms, 1.000, kEps);
  EXPECT_NEAR(timed.sites[0].saving_if_removed_ms, 1.017, kEps);
  EXPECT_NEAR(timed.sites[0].predicted_saving_ms, 1.017, kEps);
  EXPECT_NEAR(timed.sites[0].python_call_ms, 0.017, kEps);
  EXPECT_NEAR(plain.sites[0].python_call_ms, 0.0, kEps);
  // Waiting alone does not depend on it, nor do the measured facts.
  EXPECT_NEAR(timed.sites[0].wait_saving_ms, plain.sites[0].wait_saving_ms, kEps);
  EXPECT_NEAR(timed.sites[0].host_blocked_ms, plain.sites[0].host_blocked_ms, kEps);
  EXPECT_NEAR(timed.replay_error, 0.0, 1e-9);
}

TEST(ProbeAnalysis, TheProbesOwnTimeInsideAPythonCallIsNotTheReadsToSave) {
  // The probe spent 3 of the 5 us between the copy and the sync (its site capture after the copy) and 4 of
  // the 10 us after the sync: unprobed, the Python call is 7 us shorter, and so is what removing it saves.
  EventStream s = one_timed_read(2000);
  for (HostCall& h : s.host) {
    if (h.kind == HostCallKind::AsyncCopy) h.probe_ns = 3000;
    if (h.kind == HostCallKind::StreamSynchronize) h.probe_ns = 4000;
  }
  const ProbeReport r = analyze(s);
  ASSERT_EQ(r.sites.size(), 1u);
  EXPECT_NEAR(r.sites[0].python_call_ms, 0.010, kEps);
  EXPECT_NEAR(r.sites[0].saving_if_removed_ms, 1.010, kEps);
  EXPECT_NEAR(r.sites[0].predicted_saving_ms, 1.010, kEps);
  EXPECT_NEAR(r.replay_error, 0.0, 1e-9);  // the probe's time stays in the recorded timeline
  // Outside a timed Python call (C++), the probe's time changes nothing: it lies between calls, which a
  // removed read leaves in place.
  EventStream plain = one_read(2000);
  for (HostCall& h : plain.host)
    if (h.kind == HostCallKind::AsyncCopy) h.probe_ns = 3000;
  EXPECT_NEAR(analyze(plain).sites[0].saving_if_removed_ms, 1.000, kEps);
}

TEST(ProbeAnalysis, APythonCallSavesNothingMoreWhenTheGpuIsTheCriticalPath) {
  // K2 is launched 100 us after the sync: without the read it still waits for K1 on the GPU.
  EXPECT_NEAR(analyze(one_timed_read(100)).sites[0].saving_if_removed_ms, 0.115, kEps);
}

TEST(ProbeAnalysis, APythonCallOnAnotherThreadOrAroundNoCallChangesNothing) {
  EventStream s = one_read(2000);
  s.python_calls.push_back(PythonCall{testing::us(8), testing::us(1025), 2, 0});  // another thread
  s.python_calls.push_back(PythonCall{testing::us(1100), testing::us(1200), 1, 0});  // no CUDA call inside
  EXPECT_NEAR(analyze(s).sites[0].saving_if_removed_ms, 1.000, kEps);
}

TEST(ProbeAnalysis, RemovingTheReadAlsoRemovesItsCopy) {
  const ProbeReport r = analyze(one_read(100));
  ASSERT_EQ(r.sites.size(), 1u);
  // K2 runs right after K1: the bubble (113 us) and the 2 us copy on the GPU are gone.
  EXPECT_NEAR(r.sites[0].saving_if_removed_ms, 0.115, kEps);
  EXPECT_GE(r.sites[0].saving_if_removed_ms, r.sites[0].wait_saving_ms);
}

TEST(ProbeAnalysis, SyncOnAnIdleGpuSavesNothingAndLeavesNoBubbleOfItsOwn) {
  StreamBuilder b;
  const auto site = b.site("/w/train.py", 7);
  b.kernel(0, 5, 10, 30);
  b.copy_d2h(10, 5, 30, 32, site);
  b.sync(100, 104, site);  // the GPU finished at 32: nothing to wait for
  b.kernel(200, 5, 210, 1210);
  const ProbeReport r = analyze(b.done());
  ASSERT_EQ(r.sites.size(), 1u);
  EXPECT_NEAR(r.sites[0].host_blocked_ms, 0.004, kEps);
  EXPECT_NEAR(r.sites[0].gpu_idle_ms, 0.0, kEps);        // the GPU was idle because of host work
  EXPECT_NEAR(r.gpu_idle_ms, 0.178, kEps);              // 32 .. 210
  EXPECT_NEAR(r.sites[0].wait_saving_ms, 0.0, kEps);
}

TEST(ProbeAnalysis, ExplicitSynchronizeIsGuessedAsSync007) {
  StreamBuilder b;
  const auto dev = b.site("/w/train.py", 10);
  const auto ev = b.site("/w/train.py", 11);
  b.kernel(0, 5, 10, 500);
  b.sync(10, 503, dev, HostCallKind::DeviceSynchronize, "cudaDeviceSynchronize");
  b.kernel(600, 5, 610, 900);
  b.sync(610, 903, ev, HostCallKind::EventSynchronize, "cudaEventSynchronize");
  b.kernel(1000, 5, 1010, 1100);
  const ProbeReport r = analyze(b.done());
  ASSERT_EQ(r.sites.size(), 2u);
  EXPECT_EQ(find_site(r, 10)->rule_guess, "SYNC007");
  EXPECT_NEAR(find_site(r, 10)->saving_if_removed_ms, find_site(r, 10)->wait_saving_ms, 0.005);
  EXPECT_EQ(find_site(r, 11)->rule_guess, "SYNC007");
  EXPECT_NEAR(find_site(r, 10)->gpu_idle_ms, 0.110, kEps);  // 500 .. 610
  EXPECT_NEAR(find_site(r, 11)->gpu_idle_ms, 0.110, kEps);  // 900 .. 1010
}

TEST(ProbeAnalysis, ImplicitSyncThatReturnsBeforeTheGpuIsDoneDoesNotWaitInTheReplay) {
  // cudaFree is recorded as a device synchronization but returned while K1 still ran: the baseline
  // replay must not make it wait for K1, and removing it cannot save more than it lasted.
  StreamBuilder b;
  const auto free_site = b.site("/w/train.py", 12);
  const auto read = b.site("/w/train.py", 13);
  b.kernel(0, 5, 10, 2010);
  b.sync(100, 110, free_site, HostCallKind::DeviceSynchronize, "cudaFree");
  b.copy_d2h(120, 5, 2010, 2012, read);
  b.sync(130, 2015, read);
  b.kernel(2050, 5, 2060, 2160);
  const ProbeReport r = analyze(b.done());
  EXPECT_NEAR(r.replay_error, 0.0, 1e-9);
  const SiteResult* f = find_site(r, 12);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->rule_guess, "");  // an implicit synchronization, not the user's synchronize
  EXPECT_LE(f->wait_saving_ms, f->host_blocked_ms);
  EXPECT_NEAR(f->wait_saving_ms, 0.0, kEps);  // the host was ahead: nothing to gain
}

TEST(ProbeAnalysis, BlockingHostToDeviceCopyIsGuessedAsSync011) {
  StreamBuilder b;
  const auto site = b.site("/w/train.py", 5);
  b.kernel(0, 5, 10, 400);
  auto& h = b.host(20, 405, HostCallKind::BlockingCopy, "cudaMemcpy", site);
  h.correlation_id = 99;
  b.gpu(400, 402, 99, GpuActivityKind::Memcpy, "memcpy HtoD");
  b.kernel(450, 5, 460, 600);
  const ProbeReport r = analyze(b.done());
  ASSERT_EQ(r.sites.size(), 1u);
  EXPECT_EQ(r.sites[0].rule_guess, "SYNC011");
  EXPECT_NEAR(r.sites[0].gpu_idle_ms, 0.058, kEps);  // 402 .. 460
  EXPECT_GT(r.sites[0].predicted_saving_ms, 0.0);
}

// A training-like loop: per step a long forward/backward kernel, `reads` gradient-norm reads (a small
// kernel, a D2H copy and a sync each, line 20), then one loss read (line 30). Host work between calls
// is 20 us; kernels take `kernel_us`.
EventStream training(int steps, int reads, double kernel_us) {
  StreamBuilder b;
  const auto norms = b.site("/w/train.py", 20);
  const auto loss = b.site("/w/train.py", 30);
  double t = 0, gpu_free = 0;
  auto launch = [&](double dur) {
    const double start = std::max(t + 8, gpu_free);
    b.kernel(t, 4, start, start + dur);
    gpu_free = start + dur;
    t += 4 + 20;
  };
  auto read = [&](std::int32_t site) {
    const double start = std::max(t + 8, gpu_free);
    b.copy_d2h(t, 4, start, start + 2, site);
    gpu_free = start + 2;
    t += 4 + 1;
    const double end = std::max(t + 4, gpu_free + 3);
    b.sync(t, end, site);
    t = end + 20;
  };
  for (int i = 0; i < steps; ++i) {
    launch(kernel_us);
    for (int r = 0; r < reads; ++r) {
      launch(10);
      read(norms);
    }
    read(loss);
  }
  return b.done();
}

TEST(ProbeAnalysis, TwoSitesAreRankedAndBounded) {
  const ProbeReport r = analyze(training(10, 5, 500));
  ASSERT_EQ(r.sites.size(), 2u);
  const SiteResult* norms = find_site(r, 20);
  const SiteResult* loss = find_site(r, 30);
  ASSERT_TRUE(norms && loss);
  EXPECT_EQ(norms->calls, 50u);
  EXPECT_EQ(loss->calls, 10u);
  for (const auto& s : r.sites) {
    EXPECT_GE(s.wait_saving_ms, 0.0);
    EXPECT_LE(s.wait_saving_ms, s.host_blocked_ms + s.gpu_idle_ms + kEps) << s.site.line;
    EXPECT_EQ(s.rule_guess, "SYNC001|SYNC003");
  }
  // Each norm read waits for its own small kernel and leaves the GPU idle while the host runs on: the
  // five reads per step cost more than the single loss read, which the next norm kernels would overlap.
  EXPECT_GT(norms->predicted_saving_ms, loss->predicted_saving_ms);
  EXPECT_EQ(r.sites[0].site.line, 20u);
  // Savings never exceed the run.
  EXPECT_LT(norms->predicted_saving_ms + loss->predicted_saving_ms, r.run.wall_ms);
}

TEST(ProbeReplay, BaselineReproducesTheRecordedTimeline) {
  const EventStream s = training(6, 4, 700);
  detail::RecordedCarry carry;
  detail::Segment seg(s.host, s.gpu, carry);
  detail::Scenario baseline;
  seg.replay(baseline, -1);
  EXPECT_NEAR(baseline.end(), static_cast<double>(s.run_end_ns), 1.0);
  // Removing a site never makes the run longer.
  for (std::int32_t site : {0, 1}) {
    detail::Scenario without;
    seg.replay(without, site);
    EXPECT_LE(without.end(), baseline.end() + 1.0) << site;
  }
}

TEST(ProbeAnalysis, LaunchesFromAnotherThreadShiftWithTheHostChain) {
  // The main thread launches the forward kernel and reads the loss; a second thread (like autograd's)
  // launches the backward kernel in between. Removing the read moves the next step's launches on both
  // threads earlier by the same amount.
  StreamBuilder b;
  const auto loss = b.site("/w/train.py", 9);
  double t = 0;
  for (int step = 0; step < 3; ++step) {
    b.thread = 1;
    b.kernel(t, 5, t + 10, t + 510);           // forward: GPU busy until t+510
    b.thread = 2;
    b.kernel(t + 20, 5, t + 510, t + 1010);    // backward, queued behind it
    b.thread = 1;
    b.copy_d2h(t + 40, 5, t + 1010, t + 1012, loss);
    b.sync(t + 50, t + 1015, loss);
    t += 1015 + 50;                             // 50 us of host work before the next step
  }
  b.kernel(t, 5, t + 10, t + 110);              // the work after the loop
  const ProbeReport r = analyze(b.done());
  ASSERT_EQ(r.sites.size(), 1u);
  EXPECT_EQ(r.sites[0].calls, 3u);
  // Each step's bubble (1012 .. next step's forward start, 63 us) disappears: the next forward is
  // launched long before the GPU frees up.
  EXPECT_NEAR(r.sites[0].gpu_idle_ms, 3 * 0.063, kEps);
  EXPECT_NEAR(r.sites[0].wait_saving_ms, 3 * 0.063, kEps);
}

TEST(ProbeAnalysis, SplittingTheStreamIntoWindowsDoesNotChangeTheResults) {
  const EventStream whole = training(12, 3, 300);
  const ProbeReport expected = analyze(whole);
  for (const std::size_t windows : {2u, 3u, 7u, 50u}) {
    // Cut by time into equal windows: calls and activities are split wherever they fall.
    const std::uint64_t span = whole.run_end_ns / windows + 1;
    Accumulator acc;
    for (std::size_t w = 0; w < windows; ++w) {
      EventStream chunk;
      chunk.sites = whole.sites;
      for (const auto& h : whole.host)
        if (h.start_ns / span == w) chunk.host.push_back(h);
      for (const auto& g : whole.gpu)
        if (g.start_ns / span == w) chunk.gpu.push_back(g);
      acc.consume(chunk);
    }
    const ProbeReport got = acc.finish({});
    ASSERT_EQ(got.sites.size(), expected.sites.size()) << windows;
    EXPECT_EQ(got.windows, windows);
    EXPECT_NEAR(got.gpu_idle_ms, expected.gpu_idle_ms, kEps);
    EXPECT_NEAR(got.replay_error, expected.replay_error, 1e-9);
    for (std::size_t i = 0; i < got.sites.size(); ++i) {
      EXPECT_EQ(got.sites[i].site.line, expected.sites[i].site.line) << windows;
      EXPECT_EQ(got.sites[i].calls, expected.sites[i].calls) << windows;
      EXPECT_NEAR(got.sites[i].host_blocked_ms, expected.sites[i].host_blocked_ms, kEps) << windows;
      EXPECT_NEAR(got.sites[i].gpu_idle_ms, expected.sites[i].gpu_idle_ms, kEps) << windows;
      EXPECT_NEAR(got.sites[i].predicted_saving_ms, expected.sites[i].predicted_saving_ms, 1e-9) << windows;
    }
  }
}

TEST(ProbeAnalysis, SitesAreMergedAcrossWindowsByPathLineAndFunction) {
  const EventStream once = one_read(100);
  const std::uint64_t shift = once.run_end_ns + 1'000'000;
  EventStream twice = once;  // the same pattern again 1 ms later, as one stream
  for (auto h : once.host) h.start_ns += shift, h.end_ns += shift, h.correlation_id += 100, twice.host.push_back(h);
  for (auto g : once.gpu) g.start_ns += shift, g.end_ns += shift, g.correlation_id += 100, twice.gpu.push_back(g);
  // The second window names the same site at another index of its own site table.
  EventStream first = once, second;
  second.sites = {Site{"/w/other.py", 1, "f", "python"}, once.sites[0]};
  second.host.assign(twice.host.begin() + static_cast<std::ptrdiff_t>(once.host.size()), twice.host.end());
  second.gpu.assign(twice.gpu.begin() + static_cast<std::ptrdiff_t>(once.gpu.size()), twice.gpu.end());
  for (auto& h : second.host)
    if (h.site >= 0) h.site = 1;
  Accumulator acc;
  acc.consume(first);
  acc.consume(second);
  const ProbeReport r = acc.finish({});
  const ProbeReport expected = analyze(twice);
  ASSERT_EQ(r.sites.size(), 1u);
  EXPECT_EQ(r.sites[0].calls, 2u);
  EXPECT_NEAR(r.sites[0].host_blocked_ms, 2 * 0.995, kEps);
  EXPECT_NEAR(r.sites[0].gpu_idle_ms, 2 * 0.113, kEps);
  EXPECT_NEAR(r.sites[0].wait_saving_ms, expected.sites[0].wait_saving_ms, kEps);
  // The first read saves its bubble; the host then runs 991 us ahead through the 1 ms of host work
  // before the second read, which the replay keeps: the second read saves its whole wait.
  EXPECT_NEAR(r.sites[0].wait_saving_ms, 0.113 + 0.991, kEps);
}

TEST(ProbeAnalysis, PendingEventsStayBoundedWithoutSyncs) {
  Accumulator acc;
  std::uint64_t corr = 1;
  const std::size_t per_window = 50'000;
  for (int w = 0; w < 8; ++w) {
    EventStream chunk;
    for (std::size_t i = 0; i < per_window; ++i) {
      const std::uint64_t t = (static_cast<std::uint64_t>(w) * per_window + i) * 10'000;
      chunk.host.push_back(HostCall{t, t + 3000, 1, corr, HostCallKind::Launch, "cudaLaunchKernel", -1});
      chunk.gpu.push_back(GpuActivity{t + 5000, t + 9000, 0, 7, corr, GpuActivityKind::Kernel, "k"});
      ++corr;
    }
    acc.consume(chunk);
    EXPECT_LE(acc.pending_events(), Accumulator::kMaxPendingEvents);
  }
  const ProbeReport r = acc.finish({});
  EXPECT_TRUE(r.sites.empty());
  EXPECT_NEAR(r.gpu_idle_ms, (8 * per_window - 1) * 0.006, 1e-3);
}

TEST(ProbeAnalysis, BadRecordsDoNotBreakTheAnalysis) {
  StreamBuilder b;
  const auto site = b.site("/w/train.py", 3);
  b.kernel(0, 5, 10, 100);
  b.sync(20, 103, site);
  b.s.host.push_back(HostCall{200, 150, 1, 0, HostCallKind::StreamSynchronize, "cudaStreamSynchronize", 17});  // ends early, bad site
  b.gpu(300, 400, 12345, GpuActivityKind::Kernel, "orphan");  // launch not recorded
  b.s.dropped_activity_records = 4;
  const ProbeReport r = analyze(b.done());
  EXPECT_EQ(r.dropped_activity_records, 4u);
  ASSERT_EQ(r.sites.size(), 1u);
  EXPECT_EQ(r.sites[0].calls, 1u);
  EXPECT_EQ(r.syncs, 2u);  // the call with an unknown site counts in the totals only
}

TEST(ProbeAnalysis, EmptyStreamGivesAnEmptyReport) {
  const ProbeReport r = analyze(EventStream{}, RunInfo{});
  EXPECT_TRUE(r.sites.empty());
  EXPECT_EQ(r.syncs, 0u);
  EXPECT_EQ(r.version, kReportVersion);
  ASSERT_EQ(r.runs.size(), 1u);
}

}  // namespace
}  // namespace synclint::probe

namespace synclint::probe {
namespace {

// Random multi-thread, multi-stream timelines (fixed seeds): no crash, and the invariants hold.
TEST(ProbeAnalysis, RandomTimelinesKeepTheInvariants) {
  for (unsigned seed = 1; seed <= 20; ++seed) {
    std::mt19937 rng(seed);
    auto uniform = [&](double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng); };
    StreamBuilder b;
    for (int i = 0; i < 4; ++i) b.site("/w/f" + std::to_string(i) + ".py", 10 + i);
    double t = 0;
    std::map<std::uint32_t, double> stream_free;
    for (int i = 0; i < 400; ++i) {
      b.thread = 1 + static_cast<std::uint32_t>(rng() % 2);
      const std::uint32_t stream = 7 + static_cast<std::uint32_t>(rng() % 3);
      const int what = static_cast<int>(rng() % 10);
      const std::int32_t site = static_cast<std::int32_t>(rng() % 5) - 1;
      if (what < 6) {
        const double start = std::max(t + uniform(2, 20), stream_free[stream]);
        const double end = start + uniform(1, 300);
        b.kernel(t, uniform(1, 6), start, end, stream);
        stream_free[stream] = end;
        t += uniform(2, 40);
      } else if (what < 8) {
        double busy = t;
        for (auto& [s, free] : stream_free) busy = std::max(busy, free);
        const double end = std::max(t + uniform(1, 5), busy + uniform(0, 5));
        b.sync(t, end, site, what == 6 ? HostCallKind::StreamSynchronize : HostCallKind::DeviceSynchronize,
               what == 6 ? "cudaStreamSynchronize" : "cudaDeviceSynchronize");
        t = end + uniform(1, 50);
      } else {
        b.host(t, t + uniform(0, 3), HostCallKind::Other, "cudaGetDevice", site);
        t += uniform(1, 10);
      }
    }
    const EventStream s = b.done();
    const ProbeReport r = analyze(s);
    for (const auto& site : r.sites) {
      EXPECT_GE(site.wait_saving_ms, 0.0) << seed;
      EXPECT_LE(site.wait_saving_ms, site.host_blocked_ms + kEps) << seed;
    EXPECT_LE(site.saving_if_removed_ms, r.run.wall_ms + kEps) << seed;
      EXPECT_LE(site.wait_saving_ms, r.run.wall_ms + kEps) << seed;
      EXPECT_GE(site.gpu_idle_ms, 0.0) << seed;
    }
    EXPECT_LT(std::abs(r.replay_error), 0.05) << seed;
    // Random windows: the counted quantities do not change.
    Accumulator acc;
    std::size_t h = 0, g = 0;
    while (h < s.host.size() || g < s.gpu.size()) {
      EventStream chunk;
      chunk.sites = s.sites;
      const std::size_t nh = std::min(s.host.size() - h, static_cast<std::size_t>(rng() % 60));
      const std::size_t ng = std::min(s.gpu.size() - g, static_cast<std::size_t>(rng() % 60));
      chunk.host.assign(s.host.begin() + static_cast<std::ptrdiff_t>(h), s.host.begin() + static_cast<std::ptrdiff_t>(h + nh));
      chunk.gpu.assign(s.gpu.begin() + static_cast<std::ptrdiff_t>(g), s.gpu.begin() + static_cast<std::ptrdiff_t>(g + ng));
      h += nh;
      g += ng;
      acc.consume(chunk);
    }
    const ProbeReport split = acc.finish({});
    EXPECT_EQ(split.syncs, r.syncs) << seed;
    EXPECT_NEAR(split.host_blocked_ms, r.host_blocked_ms, kEps) << seed;
    EXPECT_NEAR(split.gpu_idle_ms, r.gpu_idle_ms, kEps) << seed;
  }
}

}  // namespace
}  // namespace synclint::probe

namespace synclint::probe {
namespace {

using testing::StreamBuilder;

TEST(ProbeBubble, StartUpAfterAShortSyncIsNotItsBubble) {
  // A 5 us sync at start-up, then 3 s of host start-up with no CUDA work: only what the sync had waited
  // when the GPU drained (5 us) is its bubble; the rest is host-bound idle time.
  StreamBuilder b;
  const auto site = b.site("/w/train.py", 3);
  b.kernel(0, 5, 10, 12);
  b.sync(7, 15, site);
  b.kernel(3'000'000, 5, 3'000'010, 3'000'020);
  const ProbeReport r = analyze(b.done());
  ASSERT_EQ(r.sites.size(), 1u);
  EXPECT_NEAR(r.sites[0].gpu_idle_ms, 0.005, kEps);          // drained at 12, the sync began at 7
  EXPECT_NEAR(r.gpu_idle_ms, (3'000'010 - 12) / 1e3, kEps);  // every idle gap still counts in the totals
}

}  // namespace
}  // namespace synclint::probe
