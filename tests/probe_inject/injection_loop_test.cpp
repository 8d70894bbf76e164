// A training loop played through the stand-in CUPTI comes out as a ranked site: the replay, the recorded
// stream's launch keys, the torch_ops shim's timed reads, the native site's symbolizing, a descheduled sync
// and a CUDA graph.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

#include "analysis/report_io.h"
#include "analysis/stream_io.h"

#include "injection_fixture.h"

namespace synclint::probe::inject {
namespace {

// 200 steps of a kernel launch (300 us on the "GPU") and a read of its result (D2H copy + stream sync that
// waits for the kernel), then the debris of a callback switch: an EXIT without its ENTER, callbacks without
// correlation data (which crashed the probe before it checked for them).
TEST_F(Injection, APlayedTrainingLoopThroughAStandInCuptiBecomesARankedSite) {
  use_stand_in_cupti();
  std::string out;
  // The replay as recorded, the probe's own time left in (its fidelity: replay_error below).
  setenv("SYNCLINT_PROBE_CALLBACK_NS", "0", 1);
  const bool ran = run_capture({FAKE_CUDA_HOST, PROBE_LIBRARY, FAKE_CUPTI, "200"}, out);
  unsetenv("SYNCLINT_PROBE_CALLBACK_NS");
  ASSERT_TRUE(ran) << out;
  const std::string pid = out.substr(0, out.find('\n'));
  const fs::path report = dir_ / ("report-" + pid + ".json");
  ASSERT_TRUE(fs::exists(report)) << out;
  const ProbeReport r = read_report(report);
  EXPECT_EQ(r.run.status, "ok");
  EXPECT_EQ(r.syncs, 200u);  // the debris is not counted
  ASSERT_EQ(r.sites.size(), 1u);
  const SiteResult& s = r.sites[0];
  EXPECT_EQ(fs::path(s.site.path).filename(), "fake_cuda_host.cpp") << s.site.path;
  EXPECT_GT(s.site.line, 0u);
  EXPECT_EQ(s.api, "cudaStreamSynchronize");
  EXPECT_EQ(s.calls, 200u);
  EXPECT_EQ(s.traced_calls, 200u);  // a run under a second is traced in full
  EXPECT_GT(s.host_blocked_ms, 200 * 0.2);  // each read waited for most of its kernel's 300 us
  EXPECT_GT(s.gpu_idle_ms, 0.0);            // the "GPU" idled after each read until the next launch
  EXPECT_GT(s.predicted_saving_ms, 0.0);
  EXPECT_LT(s.predicted_saving_ms, s.host_blocked_ms);  // the GPU is the critical path: the waits are not saved
  EXPECT_LT(std::abs(r.replay_error), 0.01);
  EXPECT_EQ(r.run.callback_overhead_ns, 0u);
}

// SYNCLINT_PROBE_CALLBACK_NS: the replay takes the probe's time around each recorded call out of the host's
// gaps; the report says how much, and the replayed run is shorter than the recorded one, never longer.
TEST_F(Injection, TheReplayTakesTheProbesTimeAroundEachCallOutWhenAsked) {
  use_stand_in_cupti();
  std::string out;
  setenv("SYNCLINT_PROBE_CALLBACK_NS", "1500", 1);
  const bool ran = run_capture({FAKE_CUDA_HOST, PROBE_LIBRARY, FAKE_CUPTI, "200"}, out);
  unsetenv("SYNCLINT_PROBE_CALLBACK_NS");
  ASSERT_TRUE(ran) << out;
  const ProbeReport r = read_report(report_of(out));
  EXPECT_EQ(r.run.status, "ok");
  EXPECT_EQ(r.run.callback_overhead_ns, 1500u);
  EXPECT_LT(r.replay_error, 1e-6);
  ASSERT_EQ(r.sites.size(), 1u);
  EXPECT_GT(r.sites[0].predicted_saving_ms, 0.0);
  EXPECT_GE(r.sites[0].replayed_blocked_ms, r.sites[0].host_blocked_ms - 1e-9);  // a faster host waits longer
}

// SYNCLINT_PROBE_RECORD=1: the recorded stream carries each launch's key, family and grid (the played
// loop launches its kernel with 64 blocks of 256 threads), and nothing of the sort for its copies and syncs.
TEST_F(Injection, ARecordedStreamKeepsEachLaunchsKeyAndGrid) {
  use_stand_in_cupti();
  setenv("SYNCLINT_PROBE_RECORD", "1", 1);
  std::string out;
  const bool ran = run_capture({FAKE_CUDA_HOST, PROBE_LIBRARY, FAKE_CUPTI, "50"}, out);
  unsetenv("SYNCLINT_PROBE_RECORD");
  ASSERT_TRUE(ran) << out;
  const fs::path stream = dir_ / ("stream-" + out.substr(0, out.find('\n')) + ".json");
  ASSERT_TRUE(fs::exists(stream)) << out;
  const EventStream s = read_stream(stream);
  std::size_t launches = 0;
  for (const HostCall& h : s.host) {
    if (h.api != "cudaLaunchKernel") {
      EXPECT_EQ(h.launch_blocks, 0u) << h.api;
      EXPECT_EQ(h.launch_block_threads, 0u) << h.api;
      continue;
    }
    ++launches;
    EXPECT_NE(h.launch_key, 0u);
    EXPECT_NE(h.launch_family, 0u);
    EXPECT_EQ(h.launch_blocks, 64u);
    EXPECT_EQ(h.launch_block_threads, 256u);
  }
  EXPECT_GE(launches, 50u);
}

#ifdef TORCH_OPS_SHIM
// SYNCLINT_PROBE_TORCH_OPS: in a LibTorch program the shim times each read operator (here a RecordFunction
// named aten::item around the played copy and sync, with 20 us of host work before them and 10 us after),
// and its host time outside the CUDA calls goes with the read, as a timed Python call's does. Without the
// setting nothing is timed; a shim that cannot be opened is said on stderr and the program runs on.
ProbeReport run_torch_host(const fs::path& dir, const char* shim, std::string& out) {
  if (shim != nullptr) setenv("SYNCLINT_PROBE_TORCH_OPS", shim, 1);
  out.clear();
  const bool ran = run_capture({"/bin/sh", "-c", "exec \"$@\" 2>&1", "sh", FAKE_CUDA_TORCH_HOST, PROBE_LIBRARY, FAKE_CUPTI, "300"}, out);
  unsetenv("SYNCLINT_PROBE_TORCH_OPS");
  if (!ran) return {};
  return read_report(dir / ("report-" + out.substr(0, out.find('\n')) + ".json"));
}

TEST_F(Injection, TheTorchOpsShimTimesTheHostWorkOfEachRead) {
  use_stand_in_cupti();
  std::string out;
  const ProbeReport with = run_torch_host(dir_, TORCH_OPS_SHIM, out);
  ASSERT_EQ(with.sites.size(), 1u) << out;
  EXPECT_EQ(with.run.status, "ok");
  EXPECT_EQ(with.sites[0].calls, 300u);
  // The 10 us after each read's sync; the 20 us before its copy count only where the copy is known to be
  // device-to-host from its GPU record, which the stand-in does not deliver. The reads before the shim
  // is loaded (by the probe's thread, as the loop starts) are not timed.
  EXPECT_GT(with.sites[0].python_call_ms, 150 * 0.009) << out;
  EXPECT_LT(with.sites[0].python_call_ms, 300 * 0.2);
  const ProbeReport without = run_torch_host(dir_, nullptr, out);
  ASSERT_EQ(without.sites.size(), 1u) << out;
  EXPECT_EQ(without.sites[0].python_call_ms, 0.0);
  // What the host work adds to the saving is the replay's (here the "GPU" is the critical path and
  // absorbs it: APythonCallSavesNothingMoreWhenTheGpuIsTheCriticalPath), the same for both sources.
}

TEST_F(Injection, ATorchOpsShimThatCannotBeOpenedIsSaidAndTheProgramRunsOn) {
  use_stand_in_cupti();
  std::string out;
  const ProbeReport r = run_torch_host(dir_, "/nonexistent/libsynclint_torch_ops.so", out);
  EXPECT_NE(out.find("SYNCLINT_PROBE_TORCH_OPS=/nonexistent/libsynclint_torch_ops.so: cannot open it"), std::string::npos) << out;
  ASSERT_EQ(r.sites.size(), 1u) << out;
  EXPECT_EQ(r.run.status, "ok");
  EXPECT_EQ(r.sites[0].calls, 300u);
  EXPECT_EQ(r.sites[0].python_call_ms, 0.0);
}
#endif

// An overloaded host (FAKE_HOST_HOG: another thread spins on the program's CPU): each read's spinning sync is
// preempted about half the time and returns late. The probe measures each sync's wait for a CPU (its
// thread's run_delay), and without any GPU records the model leaves that time to the host: the reads'
// estimate stays near the fully recorded one. (Read as GPU work, it came out at a twentieth of it: 19 ms
// against 423.)
TEST_F(Injection, WithoutRecordsADescheduledSyncsLateReturnIsNotReadAsGpuWork) {
  use_stand_in_cupti();
  auto saving = [](Env env, std::string& out) -> double {
    env.insert(env.end(), {{"FAKE_HOST_HOG", "1"}, {"SYNCLINT_PROBE_DEBUG", "1"}});
    if (!play_logged(env, "1500", out, true)) return -1;
    const std::optional<ProbeReport> r = report_named_in(out);
    return r && r->sites.size() == 1 && r->sites[0].calls == 1500 ? r->sites[0].predicted_saving_ms : -1;
  };
  std::string full_out, model_out;
  const double full = saving({{"SYNCLINT_PROBE_SAMPLE", "1"}}, full_out);
  // One stretch over the whole run, without records: every read traced, every GPU activity modelled.
  const double model = saving({{"SYNCLINT_PROBE_GPU_RECORDS", "model"}, {"SYNCLINT_PROBE_FIRST_MS", "100000"}}, model_out);
  ASSERT_GT(full, 0) << full_out;
  ASSERT_GT(model, 0) << model_out;
  // The played program's one module, symbolized by one tool process kept running until the probe's end.
  EXPECT_NE(model_out.find("symbolizer tool processes started: 1\n"), std::string::npos) << model_out;
  // Where the process's CPU went: the 1500 reads spin for most of the run, so the process used CPU for
  // hundreds of ms, and the probe's start-up a small part of it.
  double process = -1, before = -1, startup = -1, startup_wall = -1, program = -1, window = -1, children = -1;
  const std::size_t cpu = model_out.find("synclint probe: CPU time: process ");
  ASSERT_NE(cpu, std::string::npos) << model_out;
  ASSERT_EQ(std::sscanf(model_out.c_str() + cpu,
                        "synclint probe: CPU time: process %lf ms (%lf ms before the probe started, %lf ms in its "
                        "start-up of %lf ms), the thread that started it %lf ms, window thread %lf ms, reaped "
                        "children %lf ms",
                        &process, &before, &startup, &startup_wall, &program, &window, &children), 7)
      << model_out.substr(cpu, 300);
  EXPECT_GT(process, 100.0);
  EXPECT_LT(startup, process / 4);
  EXPECT_GE(before, 0.0);
  EXPECT_GT(program, 0.0);  // the played program's thread, whose reads spin
  EXPECT_LE(program + window, process + 1.0);
  EXPECT_GT(children, 0.0);  // the symbolizer tool
  if (model_out.find("not measured") != std::string::npos) GTEST_SKIP() << "no /proc/thread-self/schedstat here";
  EXPECT_EQ(model_out.find("descheduled inside 0 times"), std::string::npos) << model_out;
  // The debug lines say where the probe's long tasks fell: at least the final cut, with its symbolizing.
  EXPECT_NE(model_out.find("window cuts (on the window thread: symbolizing and the analysis): "), std::string::npos) << model_out;
  EXPECT_EQ(model_out.find("window cuts (on the window thread: symbolizing and the analysis): 0,"), std::string::npos) << model_out;
  EXPECT_EQ(model_out.find("symbolizing new sites (as they come, on the resolver thread, and in the cuts): 0,"),
            std::string::npos) << model_out;
  // The read's site symbolized as soon as it was captured (its first read), not at the first cut.
  const std::size_t symbolized = model_out.find("synclint probe: symbolizing new sites of ");
  EXPECT_NE(symbolized, std::string::npos) << model_out;
  EXPECT_LT(symbolized, model_out.find("synclint probe: window cut of ")) << model_out;
  EXPECT_NE(model_out.find("synclint probe: window cut of "), std::string::npos) << model_out;  // as it happened
  EXPECT_NE(model_out.find("modelled GPU activities"), std::string::npos) << model_out;
  EXPECT_NEAR(model / full, 1.0, 0.25) << "fully recorded " << full << " ms, modelled " << model << " ms\n" << model_out;
}

// A module whose debug information takes long to load (a stand-in addr2line that waits 1.5 s before the
// real one) is symbolized on the probe's resolver thread, from the site's first capture: the first stretch
// still ends on time, where on the window thread it would have waited for the symbolizer, and the site
// still gets its file:line by the report.
TEST_F(Injection, ASlowSymbolizerDoesNotHoldTheFirstStretchOpen) {
  use_stand_in_cupti();
  const std::string real = find_on_path("addr2line");
  if (real.empty()) GTEST_SKIP() << "addr2line is not on PATH";
  const fs::path bin = dir_ / "slow-bin";
  fs::create_directories(bin);
  std::ofstream(bin / "addr2line") << "#!/bin/sh\nsleep 1.5\nexec " << real << " \"$@\"\n";
  fs::permissions(bin / "addr2line", fs::perms::owner_all);
  const std::string old_path = std::getenv("PATH") != nullptr ? std::getenv("PATH") : "/usr/bin:/bin";
  setenv("PATH", (bin.string() + ":" + old_path).c_str(), 1);
  std::string out;
  const auto played = play_logged({{"SYNCLINT_PROBE_FIRST_MS", "200"}, {"SYNCLINT_PROBE_DEBUG", "1"}}, "3000", out, true);
  setenv("PATH", old_path.c_str(), 1);
  ASSERT_TRUE(played) << out;
  const std::size_t off = out.find("synclint probe: tracing off at ");
  ASSERT_NE(off, std::string::npos) << out;
  const double off_ms = std::atof(out.c_str() + off + std::strlen("synclint probe: tracing off at "));
  EXPECT_LT(off_ms, 700.0) << out;
  const std::size_t symbolized = out.find("synclint probe: symbolizing new sites of ");
  ASSERT_NE(symbolized, std::string::npos) << out;
  EXPECT_GE(std::atof(out.c_str() + symbolized + std::strlen("synclint probe: symbolizing new sites of ")), 1400.0) << out;
  const std::optional<ProbeReport> r = report_named_in(out);
  ASSERT_TRUE(r) << out;
  ASSERT_EQ(r->sites.size(), 1u) << out;
  EXPECT_EQ(fs::path(r->sites[0].site.path).filename(), "fake_cuda_host.cpp") << r->sites[0].site.path;
}

}  // namespace
}  // namespace synclint::probe::inject
