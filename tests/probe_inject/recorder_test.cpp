#include "recorder.h"

#include <thread>

#include <gtest/gtest.h>

namespace synclint::probe::inject {
namespace {

RawCall call(std::uint64_t start, std::uint64_t end, std::uint64_t corr, std::uint32_t api, HostCallKind kind,
             std::int32_t site = -1) {
  RawCall c;
  c.start = start;
  c.end = end;
  c.correlation = corr;
  c.api = api;
  c.kind = kind;
  c.site = site;
  return c;
}

RawGpu gpu(std::uint64_t start, std::uint64_t end, std::uint64_t corr, std::uint32_t name,
           GpuActivityKind kind = GpuActivityKind::Kernel, bool driver = false) {
  RawGpu g;
  g.start = start;
  g.end = end;
  g.correlation = corr;
  g.name = name;
  g.kind = kind;
  g.driver_correlation = driver;
  return g;
}

TEST(Recorder, WindowTakesWhatStartedBeforeTheCutSortedAcrossThreads) {
  Recorder rec({});
  auto launch = rec.add_api("cudaLaunchKernel");
  auto sync = rec.add_api("cudaStreamSynchronize");
  rec.set_run_start(100);
  std::int32_t site = rec.sites().intern({"/src/train.py", 7, "step", "python"});
  rec.add_call(call(300, 310, 2, launch, HostCallKind::Launch));
  std::thread other([&] { rec.add_call(call(200, 250, 1, sync, HostCallKind::StreamSynchronize, site)); });
  other.join();
  rec.add_call(call(900, 990, 3, sync, HostCallKind::StreamSynchronize, site));
  auto k = rec.intern_name("gemm");
  RawGpu g[] = {gpu(400, 500, 2, k), gpu(950, 960, 9, k)};
  rec.add_gpu(g, 2);
  rec.add_dropped(5);

  EventStream w = rec.take_window(800, false);
  ASSERT_EQ(w.host.size(), 2u);
  EXPECT_EQ(w.host[0].start_ns, 200u);  // sorted by start, from both threads
  EXPECT_EQ(w.host[0].api, "cudaStreamSynchronize");
  EXPECT_EQ(w.host[0].site, site);
  EXPECT_NE(w.host[0].thread, w.host[1].thread);
  EXPECT_EQ(w.host[1].api, "cudaLaunchKernel");
  ASSERT_EQ(w.gpu.size(), 1u);
  EXPECT_EQ(w.gpu[0].name, "gemm");
  EXPECT_EQ(w.gpu[0].correlation_id, 2u);
  EXPECT_EQ(w.dropped_activity_records, 5u);
  EXPECT_EQ(w.run_start_ns, 100u);
  EXPECT_EQ(w.run_end_ns, 800u);
  ASSERT_EQ(w.sites.size(), 1u);
  EXPECT_EQ(w.sites[0].path, "/src/train.py");

  EventStream rest = rec.take_window(0, true);
  ASSERT_EQ(rest.host.size(), 1u);
  EXPECT_EQ(rest.host[0].start_ns, 900u);
  ASSERT_EQ(rest.gpu.size(), 1u);
  EXPECT_EQ(rest.dropped_activity_records, 0u);  // counted once
  EXPECT_EQ(rest.run_start_ns, 800u);
  EXPECT_EQ(rest.run_end_ns, 990u);
  EXPECT_TRUE(rec.take_window(0, true).host.empty());
}

TEST(Recorder, MemsetRecordsGetTheirRuntimeCallsCorrelation) {
  Recorder rec({});
  auto k = rec.intern_name("memset");
  rec.map_correlation(77, 12);
  RawGpu g[] = {gpu(10, 20, 77, k, GpuActivityKind::Memset, true), gpu(30, 40, 78, k, GpuActivityKind::Memset, true)};
  rec.add_gpu(g, 2);
  EventStream w = rec.take_window(0, true);
  ASSERT_EQ(w.gpu.size(), 2u);
  EXPECT_EQ(w.gpu[0].correlation_id, 12u);
  EXPECT_EQ(w.gpu[1].correlation_id, 78u);  // a direct driver call: its own id
}

TEST(Recorder, SafeCutStaysBehindPendingGpuWork) {
  Recorder rec({});
  const std::uint64_t now = 10'000'000'000;
  EXPECT_EQ(rec.safe_cut(now), now - 100'000'000);  // no GPU records: a margin behind now
  auto k = rec.intern_name("k");
  RawGpu g[] = {gpu(1'000'000'000, 2'000'000'000, 1, k)};
  rec.add_gpu(g, 1);
  EXPECT_EQ(rec.safe_cut(now), 2'000'000'000u);  // not past the last GPU record seen
  rec.take_window(rec.safe_cut(now), false);
  EXPECT_EQ(rec.safe_cut(now), now - 100'000'000);
}

TEST(Recorder, FullBufferAsksForACutOncePerWindow) {
  RecorderOptions opt;
  opt.window_calls = 3;
  Recorder rec(opt);
  static int asked = 0;
  asked = 0;
  rec.set_on_full([] { ++asked; });
  auto api = rec.add_api("cudaLaunchKernel");
  for (int i = 0; i < 5; ++i) rec.add_call(call(i, i + 1, i, api, HostCallKind::Launch));
  EXPECT_EQ(asked, 1);
  rec.take_window(0, true);
  for (int i = 0; i < 3; ++i) rec.add_call(call(i, i + 1, i, api, HostCallKind::Launch));
  EXPECT_EQ(asked, 2);
  EXPECT_EQ(rec.host_calls_seen(), 8u);
}

TEST(Recorder, LastSiteLabelsOnlyTheMatchingCall) {
  Recorder rec({});
  auto copy = rec.add_api("cudaMemcpyAsync");
  rec.add_call(call(1, 2, 40, copy, HostCallKind::AsyncCopy));
  rec.set_last_site(41, 3);
  rec.set_last_site(40, 5);
  EventStream w = rec.take_window(0, true);
  ASSERT_EQ(w.host.size(), 1u);
  EXPECT_EQ(w.host[0].site, 5);
}

TEST(Recorder, RecordedStreamIsCappedAtAPrefix) {
  RecorderOptions opt;
  opt.record_max_calls = 3;
  Recorder rec(opt);
  auto api = rec.add_api("cudaLaunchKernel");
  auto k = rec.intern_name("k");
  rec.set_run_start(0);
  for (std::uint64_t i = 0; i < 5; ++i) {
    rec.add_call(call(10 * i, 10 * i + 2, i + 1, api, HostCallKind::Launch));
    RawGpu g = gpu(10 * i + 3, 10 * i + 6, i + 1, k);
    rec.add_gpu(&g, 1);
  }
  rec.consume(rec.take_window(0, true));
  bool truncated = false;
  EventStream s = rec.recorded(truncated);
  EXPECT_TRUE(truncated);
  ASSERT_EQ(s.host.size(), 3u);
  EXPECT_EQ(s.gpu.size(), 3u);
  EXPECT_EQ(s.run_end_ns, 30u);
  EXPECT_EQ(rec.windows(), 1u);
}

TEST(Recorder, NothingRecordedUnlessAsked) {
  Recorder rec({});
  auto api = rec.add_api("cudaLaunchKernel");
  rec.add_call(call(1, 2, 1, api, HostCallKind::Launch));
  rec.consume(rec.take_window(0, true));
  bool truncated = true;
  EXPECT_TRUE(rec.recorded(truncated).host.empty());
  EXPECT_FALSE(truncated);
}

// Times in us. A read (kernel 1000 us, sync waiting for it) at t=0, traced, then host work until 2505 us
// (a launch at 1500, another at 2500), so that the host is the critical path at the stretch's end; with
// `untraced`, tracing goes off at 3000 us, the same read is seen twice while off (blocking calls only),
// tracing is on again at 8000 us and a last launch comes at 8500 us. Nothing is known of the untraced span,
// so the read's saving is the lead it had at the span's start: the unsampled run, without the span and
// the last launch, ends there.
ProbeReport sampled_run(bool untraced) {
  Recorder rec({});
  const auto launch = rec.add_api("cudaLaunchKernel");
  const auto sync = rec.add_api("cudaStreamSynchronize");
  const auto k = rec.intern_name("k");
  const auto site = rec.sites().intern(Site{"/w/train.py", 7, "step", "python"});
  rec.set_run_start(0);
  auto us = [](std::uint64_t v) { return v * 1000; };
  rec.add_call(call(us(0), us(5), 1, launch, HostCallKind::Launch));
  const RawGpu g[] = {gpu(us(10), us(1010), 1, k), gpu(us(1510), us(1600), 2, k)};
  rec.add_gpu(g, 2);
  rec.add_call(call(us(20), us(1015), 0, sync, HostCallKind::StreamSynchronize, site));
  rec.add_call(call(us(1500), us(1505), 2, launch, HostCallKind::Launch));
  rec.add_call(call(us(2500), us(2505), 0, launch, HostCallKind::Launch));
  if (untraced) {
    rec.tracing_switched(false, us(3000));
    for (std::uint64_t t : {4000, 5000}) {
      RawCall c = call(us(t), us(t + 900), 0, sync, HostCallKind::StreamSynchronize, site);
      c.traced = false;
      rec.add_call(c);
    }
    rec.tracing_switched(true, us(8000));
    rec.add_call(call(us(8500), us(8505), 3, launch, HostCallKind::Launch));
  }
  rec.consume(rec.take_window(0, true));
  return rec.finish({});
}

TEST(Recorder, UntracedCallsAreCountedAndScaleTheTracedOnes) {
  const ProbeReport r = sampled_run(true);
  ASSERT_EQ(r.sites.size(), 1u);
  EXPECT_EQ(r.sites[0].calls, 3u);
  EXPECT_NEAR(r.sites[0].host_blocked_ms, 0.995 + 2 * 0.9, 1e-9);
  EXPECT_EQ(r.syncs, 3u);
  EXPECT_NEAR(r.sampled_fraction, 1.0 - 5000.0 / 8505.0, 1e-9);  // the run ends with its last call
  // GPU idle and savings come from the one traced call, scaled to three: what grows with the waiting by
  // host-blocked time (2.795 ms in all / 0.995 traced), the rest per call.
  const ProbeReport o = sampled_run(false);
  ASSERT_EQ(o.sites.size(), 1u);
  EXPECT_EQ(o.sampled_fraction, 1.0);
  const SiteResult& t = o.sites[0];
  EXPECT_GT(t.predicted_saving_ms, t.wait_saving_ms);
  EXPECT_NEAR(r.sites[0].traced_host_blocked_ms, 0.995, 1e-9);
  const double per_blocked = (0.995 + 2 * 0.9) / 0.995;
  EXPECT_NEAR(r.sites[0].wait_saving_ms, t.wait_saving_ms * per_blocked, 1e-9);
  EXPECT_NEAR(r.sites[0].predicted_saving_ms, t.wait_saving_ms * per_blocked + 3 * (t.predicted_saving_ms - t.wait_saving_ms), 1e-9);
  EXPECT_NEAR(r.sites[0].gpu_idle_ms, t.gpu_idle_ms * per_blocked, 1e-9);
}

TEST(SiteTable, ASiteWithoutAFileNameGetsTheUnknownPath) {
  // Streams and reports require a path; a frame without a file name must not make them unreadable.
  SiteTable t;
  const auto a = t.intern({"", 3, "f", "python"});
  const auto b = t.add_unique({"", 0, "", "cpp"});
  t.update(b, {"", 7, "g", "cpp"});
  const auto c = t.intern({"/w/train.py", 3, "f", "python"});
  const auto sites = t.snapshot();
  ASSERT_EQ(sites.size(), 3u);
  EXPECT_EQ(sites[static_cast<std::size_t>(a)].path, SiteTable::kUnknownPath);
  EXPECT_EQ(sites[static_cast<std::size_t>(b)].path, SiteTable::kUnknownPath);
  EXPECT_EQ(sites[static_cast<std::size_t>(b)].line, 7u);
  EXPECT_EQ(sites[static_cast<std::size_t>(c)].path, "/w/train.py");
  EXPECT_EQ(t.intern({"", 3, "f", "python"}), a);  // interned under the unknown path like any other
}

}  // namespace
}  // namespace synclint::probe::inject
