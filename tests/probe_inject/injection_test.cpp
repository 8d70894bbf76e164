// The injection end to end: a host program loads libsynclint_probe.so as the CUDA driver would and calls
// InitializeInjection. There is no GPU driver here, so the real CUPTI cannot subscribe: the program must go
// on and a report must say why there is no data. With a stand-in CUPTI (fake_cupti.cpp) the probe's whole
// callback path runs: a played training loop must come out as a ranked site.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <string>

#include <cupti_activity.h>
#include <gtest/gtest.h>

#include <fstream>
#include <optional>
#include <set>

#include <nlohmann/json.hpp>

#include "analysis/report_io.h"
#include "analysis/stream_io.h"
#include "symbolizer.h"

namespace synclint::probe::inject {
namespace {

namespace fs = std::filesystem;

class Injection : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("synclint-inject-" + std::to_string(getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    setenv("SYNCLINT_PROBE_DIR", dir_.c_str(), 1);
    for (const char* v : {"RANK", "LOCAL_RANK", "SLURM_PROCID", "SYNCLINT_CUPTI_PATH", "FAKE_CUPTI_BUSY", "SYNCLINT_PROBE_SKIP",
                          "SYNCLINT_PROBE_GPU_RECORDS"})
      unsetenv(v);
  }
  void TearDown() override {
    unsetenv("SYNCLINT_PROBE_DIR");
    for (const char* v : {"RANK", "SYNCLINT_CUPTI_PATH", "FAKE_CUPTI_BUSY", "FAKE_CUPTI_DROPPED", "SYNCLINT_PROBE_SKIP",
                          "SYNCLINT_PROBE_LIBRARY", "SYNCLINT_PROBE_GPU_RECORDS"})
      unsetenv(v);
    fs::remove_all(dir_);
  }
  // The stand-in CUPTI (fake_cupti.cpp) for the probe; it plays the CUDA runtime, so its frames are not
  // the user's code. With `cli`, also the probe library for `synclint probe` and a folder for its output.
  void use_stand_in_cupti(bool cli = false) {
    setenv("SYNCLINT_CUPTI_PATH", FAKE_CUPTI, 1);
    setenv("SYNCLINT_PROBE_SKIP", "+fake_cupti", 1);
    if (!cli) return;
    setenv("SYNCLINT_PROBE_LIBRARY", PROBE_LIBRARY, 1);
    fs::create_directories(dir_);
  }
  // Runs the host; returns its pid (printed first) and whether it exited 0.
  std::string run_host(bool& ok, const char* extra = nullptr) {
    std::string out;
    std::vector<std::string> argv = {PROBE_INJECT_HOST, PROBE_LIBRARY};
    if (extra != nullptr) argv.emplace_back(extra);
    ok = run_capture(argv, out);
    return out.substr(0, out.find('\n'));
  }
  fs::path dir_;
};

TEST_F(Injection, NoDriverGivesAReportSayingWhy) {
  bool ok = false;
  std::string pid = run_host(ok);
  EXPECT_TRUE(ok) << "the host program must run on";
  fs::path report = dir_ / ("report-" + pid + ".json");
  ASSERT_TRUE(fs::exists(report)) << report;
  ProbeReport r = read_report(report);
  EXPECT_EQ(r.run.status.rfind("cupti-unavailable: ", 0), 0u) << r.run.status;
  EXPECT_EQ(std::to_string(r.run.pid), pid);
  EXPECT_EQ(r.run.rank, -1);
  ASSERT_FALSE(r.run.command.empty());
  EXPECT_NE(r.run.command[0].find("probe_inject_host"), std::string::npos);
  EXPECT_TRUE(r.sites.empty());
}

TEST_F(Injection, MissingCuptiLibrary) {
  setenv("SYNCLINT_CUPTI_PATH", "/nonexistent/libcupti.so", 1);
  bool ok = false;
  std::string pid = run_host(ok);
  EXPECT_TRUE(ok);
  ProbeReport r = read_report(dir_ / ("report-" + pid + ".json"));
  EXPECT_NE(r.run.status.find("cannot load libcupti"), std::string::npos) << r.run.status;
}

TEST_F(Injection, RankInTheFileName) {
  setenv("RANK", "3", 1);
  bool ok = false;
  std::string pid = run_host(ok);
  EXPECT_TRUE(ok);
  fs::path report = dir_ / ("report-rank3-" + pid + ".json");
  ASSERT_TRUE(fs::exists(report));
  EXPECT_EQ(read_report(report).run.rank, 3);
}

TEST_F(Injection, ReportExistsWhenTheProgramIsKilled) {
  bool ok = true;
  std::string pid = run_host(ok, "term");
  EXPECT_FALSE(ok);  // died of SIGTERM
  EXPECT_TRUE(fs::exists(dir_ / ("report-" + pid + ".json")));
}

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
  const ProbeReport r = read_report(dir_ / ("report-" + out.substr(0, out.find('\n')) + ".json"));
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

// The same loop sampled: 20 ms traced, then off for at least SampleSchedule::kMinOff, so the window thread
// switches the launch callbacks and kernel records off and on (with flushes completed on the stand-in's
// own thread) while the loop runs and a second thread launches all the while; every read is still counted.
// (Also run clean under ThreadSanitizer and AddressSanitizer, with SYNCLINT_PROBE_REQUEST_PAST_START=0 and 1.)
TEST_F(Injection, ASampledPlayedLoopCountsEveryReadAndScalesItsTracedOnes) {
  use_stand_in_cupti();
  setenv("SYNCLINT_PROBE_SAMPLE", "0.2", 1);
  setenv("SYNCLINT_PROBE_SAMPLE_MS", "20", 1);
  std::string out;
  const bool ran = run_capture({FAKE_CUDA_HOST, PROBE_LIBRARY, FAKE_CUPTI, "1500", "launcher"}, out);
  unsetenv("SYNCLINT_PROBE_SAMPLE");
  unsetenv("SYNCLINT_PROBE_SAMPLE_MS");
  ASSERT_TRUE(ran) << out;
  const ProbeReport r = read_report(dir_ / ("report-" + out.substr(0, out.find('\n')) + ".json"));
  EXPECT_EQ(r.run.status, "ok");
  ASSERT_EQ(r.sites.size(), 1u);
  const SiteResult& s = r.sites[0];
  EXPECT_EQ(s.calls, 1500u);
  EXPECT_GT(s.traced_calls, 0u);
  EXPECT_LT(s.traced_calls, s.calls);
  EXPECT_LT(s.traced_host_blocked_ms, s.host_blocked_ms);
  EXPECT_GT(r.sampled_fraction, 0.0);
  EXPECT_LT(r.sampled_fraction, 1.0);
  EXPECT_GT(s.predicted_saving_ms, 0.0);
  EXPECT_LT(s.predicted_saving_ms, s.host_blocked_ms);
}

// `synclint probe --trace` on the played loop: the real CLI, the real injected library, the stand-in CUPTI.
TEST_F(Injection, SynclintProbeRanksThePlayedLoopAndTracesItsKernelsAndBubbles) {
#ifndef SYNCLINT_EXE
  GTEST_SKIP() << "built without the synclint CLI";
#else
  use_stand_in_cupti(true);
  const fs::path report = dir_ / "r.json", trace = dir_ / "t.json";
  std::string out;
  const bool ran = run_capture({SYNCLINT_EXE, "probe", "-o", report.string(), "--trace", trace.string(), "--",
                                FAKE_CUDA_HOST, PROBE_LIBRARY, FAKE_CUPTI, "100"}, out);
  ASSERT_TRUE(ran) << out;
  EXPECT_NE(out.find("fake_cuda_host.cpp:"), std::string::npos) << out;  // the ranked table names the site
  const ProbeReport r = read_report(report);
  ASSERT_EQ(r.sites.size(), 1u);
  EXPECT_EQ(r.sites[0].calls, 100u);
  std::ifstream in(trace);
  const nlohmann::json doc = nlohmann::json::parse(in);
  std::set<std::string> tracks;
  int kernels = 0, bubbles = 0, reads = 0;
  for (const auto& e : doc["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "thread_name") tracks.insert(e["args"]["name"].get<std::string>());
    if (e["ph"] != "X") continue;
    const std::string name = e["name"];
    kernels += name == "fake_kernel";
    bubbles += name.starts_with("GPU idle after fake_cuda_host.cpp:") && name.ends_with(" cudaStreamSynchronize");
    reads += e.value("cat", "") == "sync";
  }
  EXPECT_EQ(kernels, 100);
  EXPECT_EQ(reads, 100);
  // After each read but the last the GPU waits for the next launch; a read that finds its kernel done
  // already (the host preempted past the kernel's 300 us, as under a loaded CI machine) leaves none.
  EXPECT_GE(bubbles, 90);
  EXPECT_TRUE(tracks.count("GPU 0 stream 7")) << doc["traceEvents"].size();
#endif
}

// Killed by SIGTERM mid-run (after 150 reads, GPU records dropped by CUPTI): the report is still written,
// with every read and the dropped records counted. (With the first stretch's GPU records, which the
// setting names so that the test does not depend on the default.)
TEST_F(Injection, APlayedLoopKilledBySigtermStillReportsItsReadsAndDroppedRecords) {
  use_stand_in_cupti();
  setenv("SYNCLINT_PROBE_GPU_RECORDS", "first", 1);
  setenv("FAKE_CUPTI_DROPPED", "3", 1);
  std::string out;
  const bool ran = run_capture({FAKE_CUDA_HOST, PROBE_LIBRARY, FAKE_CUPTI, "150", "term"}, out);
  unsetenv("FAKE_CUPTI_DROPPED");
  EXPECT_FALSE(ran);  // died of SIGTERM
  const fs::path report = dir_ / ("report-" + out.substr(0, out.find('\n')) + ".json");
  ASSERT_TRUE(fs::exists(report)) << out;
  const ProbeReport r = read_report(report);
  ASSERT_EQ(r.sites.size(), 1u);
  EXPECT_EQ(r.sites[0].calls, 150u);
  EXPECT_GT(r.sites[0].predicted_saving_ms, 0.0);
  EXPECT_GE(r.dropped_activity_records, 3u);  // 3 with each completed buffer
}

// SYNCLINT_PROBE_DEBUG=1: a thread that faults prints its stack before the program's own handling (here
// the default: death by SIGSEGV), since a crash leaves no report. Without it the probe leaves faults alone.
TEST_F(Injection, AFaultPrintsTheStackInDebugModeOnly) {
  use_stand_in_cupti();
  const std::string cmd = std::string("ulimit -c 0; exec '") + FAKE_CUDA_HOST + "' '" + PROBE_LIBRARY + "' '" + FAKE_CUPTI + "' 20 fault 2>&1";
  for (bool debug : {true, false}) {
    if (debug) setenv("SYNCLINT_PROBE_DEBUG", "1", 1);
    std::string out;
    EXPECT_FALSE(run_capture({"/bin/sh", "-c", cmd}, out)) << out;
    unsetenv("SYNCLINT_PROBE_DEBUG");
    const auto head = out.find("synclint probe: signal 11 at address");
    if (!debug) {
      EXPECT_EQ(head, std::string::npos) << out;
      continue;
    }
    ASSERT_NE(head, std::string::npos) << out;
    EXPECT_NE(out.find("fake_cuda_host", head), std::string::npos) << out;  // the faulting thread's frames
    EXPECT_NE(out.find("libsynclint_probe.so", head), std::string::npos) << out;
  }
}

// The stand-in CUPTI's log of what the probe switched (FAKE_CUPTI_LOG): (event, ns) in order; removes it.
std::vector<std::pair<std::string, std::uint64_t>> read_switch_log(const fs::path& log) {
  std::ifstream in(log);
  std::vector<std::pair<std::string, std::uint64_t>> switches;
  std::string what;
  std::uint64_t ns = 0;
  while (in >> what >> ns) switches.emplace_back(what, ns);
  fs::remove(log);
  return switches;
}

// Plays `steps` steps of fake_cuda_host under the probe and the stand-in CUPTI with the settings `env`
// (unset afterwards) and the stand-in's switch log on; `out` gets the host's output (with stderr when
// `with_stderr`). Returns the log, or nothing when the host failed.
std::optional<std::vector<std::pair<std::string, std::uint64_t>>> play_logged(
    const std::vector<std::pair<const char*, const char*>>& env, const char* steps, std::string& out,
    bool with_stderr = false) {
  const fs::path log = fs::temp_directory_path() / ("fake-cupti-" + std::to_string(getpid()) + ".log");
  fs::remove(log);
  for (const auto& [name, value] : env) setenv(name, value, 1);
  setenv("FAKE_CUPTI_LOG", log.c_str(), 1);
  std::vector<std::string> argv = {FAKE_CUDA_HOST, PROBE_LIBRARY, FAKE_CUPTI, steps};
  if (with_stderr) argv.insert(argv.begin(), {"/bin/sh", "-c", "exec \"$@\" 2>&1", "sh"});
  const bool ran = run_capture(argv, out);
  for (const auto& [name, value] : env) unsetenv(name);
  unsetenv("FAKE_CUPTI_LOG");
  auto switches = read_switch_log(log);
  if (!ran) return std::nullopt;
  return switches;
}

// A site traced only in the first stretch asks for another at once (SiteRequests' past_start, the default):
// the kernel records, switched off at the end of the first 20 ms, come back on only once they have been
// off for SampleSchedule::kMinOff (250 ms), and the requested stretch's reads are traced. Mid-run the
// activity buffers are flushed by default only, never forced (which is for the end of the session): each
// stretch's SampleSchedule::kFlushDelay (200 ms) after it ends, before the next stretch begins. (With
// SYNCLINT_PROBE_GPU_RECORDS=all: by default the records are on in the first stretch only.)
TEST_F(Injection, ARequestRightAfterASwitchOffWaitsAQuarterSecond) {
  use_stand_in_cupti();
  std::string out;
  auto played = play_logged(
      {{"SYNCLINT_PROBE_GPU_RECORDS", "all"}, {"SYNCLINT_PROBE_SAMPLE", "0.01"}, {"SYNCLINT_PROBE_SAMPLE_MS", "20"}}, "1500", out);
  ASSERT_TRUE(played) << out;
  auto switches = *played;
  // CUPTI's per-thread buffers go off first, before the buffer callbacks (the stand-in refuses it after).
  ASSERT_FALSE(switches.empty());
  EXPECT_EQ(switches[0].first, "per-thread-buffers-off");
  switches.erase(switches.begin());
  ASSERT_GE(switches.size(), 4u);  // on at the start, off after 20 ms, flushed, on again for the request
  EXPECT_EQ(switches[0].first, "enable");
  EXPECT_EQ(switches.back().first, "forced-flush");  // at exit
  std::uint64_t off = 0;
  bool flushed = false;
  for (std::size_t i = 1; i + 1 < switches.size(); ++i) {
    const auto& [event, at] = switches[i];
    EXPECT_NE(event, "forced-flush") << "a forced flush mid-run, " << (at - switches[0].second) / 1000000 << " ms in";
    if (event == "disable") {
      off = at;
      flushed = false;
    } else if (event == "flush" && off != 0 && at - off >= 195'000'000u) {
      flushed = true;
    } else if (event == "enable") {
      EXPECT_GE(at - off, 245'000'000u) << "switched on again too soon";
      EXPECT_TRUE(flushed) << "the last stretch's records are flushed before the next begins";
    }
  }
  const ProbeReport r = read_report(dir_ / ("report-" + out.substr(0, out.find('\n')) + ".json"));
  ASSERT_EQ(r.sites.size(), 1u);
  EXPECT_EQ(r.sites[0].calls, 1500u);
  EXPECT_GT(r.sites[0].traced_calls, 200u);  // more than the first 20 ms hold (~65): the request's stretch
}

// SYNCLINT_PROBE_FIRST_MS gives the first stretch, which holds the start-up, a length of its own (with
// records in every stretch; by default the first stretch goes on until the GPU work settles, as below).
TEST_F(Injection, TheFirstStretchEndsAfterFirstMs) {
  use_stand_in_cupti();
  std::string out;
  const auto played = play_logged(
      {{"SYNCLINT_PROBE_GPU_RECORDS", "all"}, {"SYNCLINT_PROBE_SAMPLE", "0.01"}, {"SYNCLINT_PROBE_FIRST_MS", "30"}}, "1500", out);
  ASSERT_TRUE(played) << out;
  const auto& switches = *played;
  const auto on = std::find_if(switches.begin(), switches.end(), [](const auto& e) { return e.first == "enable"; });
  ASSERT_NE(on, switches.end());
  const auto off = std::find_if(on, switches.end(), [](const auto& e) { return e.first == "disable"; });
  ASSERT_NE(off, switches.end()) << "the first stretch never ended";
  EXPECT_GE(off->second - on->second, 25'000'000u);
  EXPECT_LT(off->second - on->second, 500'000'000u);  // not the 1 s of SYNCLINT_PROBE_SAMPLE_MS
}

// How often `what` occurs in `text`.
std::size_t occurrences(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// A sampled run of 1500 steps with 20 ms stretches every 2 s (unless the setting says otherwise) and the given
// record setting, with SYNCLINT_PROBE_DEBUG=1:
// how often the kernel records were switched on and off, the GPU records the probe kept, its stderr and
// its report.
struct RecordSwitches {
  std::size_t enables = 0, disables = 0;
  std::size_t disables_on_host = 0;  // of the disables, those made on the thread that played the API calls
  std::size_t off_inside = 0;  // callbacks switched off while a thread was inside their call
  std::size_t callbacks_off = 0;  // runtime API callbacks switched off (with FAKE_CUPTI_LOG_CALLBACKS=1)
  std::uint64_t records = 0;
  // With the GPU model, its debug line "modelled GPU activities N (M without a learned duration)": N, M.
  std::optional<std::pair<std::uint64_t, std::uint64_t>> modelled;
  std::string out;
  ProbeReport report;
};

// The report the probe's debug line at exit names ("... report PATH"), read; nullopt when there is none.
std::optional<ProbeReport> report_named_in(const std::string& out) {
  const auto at = out.find(" report ");
  if (at == std::string::npos) return std::nullopt;
  return read_report(out.substr(at + 8, out.find('\n', at) - at - 8));
}

std::optional<RecordSwitches> play_record_setting(std::vector<std::pair<const char*, const char*>> setting,
                                                  const char* steps = "1500") {
  RecordSwitches r;
  for (const auto& [name, value] : {std::pair{"SYNCLINT_PROBE_SAMPLE", "0.01"}, {"SYNCLINT_PROBE_SAMPLE_MS", "20"}, {"SYNCLINT_PROBE_DEBUG", "1"}})
    if (std::none_of(setting.begin(), setting.end(), [&](const auto& s) { return std::string(s.first) == name; }))
      setting.emplace_back(name, value);  // the defaults of these runs, unless the setting has its own
  const auto played = play_logged(setting, steps, r.out, true);
  const auto records_at = r.out.find("gpu records ");
  std::optional<ProbeReport> report = report_named_in(r.out);
  if (!played || records_at == std::string::npos || !report) {
    ADD_FAILURE() << r.out;
    return std::nullopt;
  }
  for (const auto& [event, at] : *played) {
    r.enables += event == "enable";
    r.disables += event == "disable";
    r.disables_on_host += event == "disable-on-host-thread";
    r.off_inside += event == "callback-off-inside";
    r.callbacks_off += event == "callback-off";
  }
  r.records = std::strtoull(r.out.c_str() + records_at + 12, nullptr, 10);
  if (const auto at = r.out.find("modelled GPU activities "); at != std::string::npos) {
    char* rest = nullptr;
    const std::uint64_t n = std::strtoull(r.out.c_str() + at + 24, &rest, 10);
    r.modelled.emplace(n, std::strtoull(rest + 2, nullptr, 10));
  }
  r.report = std::move(*report);
  return r;
}

// SYNCLINT_PROBE_KEEP_RECORDS (a diagnostic, with records in every stretch): the record kinds are switched on
// once, at the start, and never off; a kernel record is kept only when it starts inside a traced stretch, so
// the analysis gets the records of the traced steps (one kernel each) and not the ~800 of the untraced ones.
TEST_F(Injection, KeepRecordsLeavesTheKindsOnAndKeepsOnlyTheStretchesRecords) {
  use_stand_in_cupti();
  const auto r = play_record_setting({{"SYNCLINT_PROBE_GPU_RECORDS", "all"}, {"SYNCLINT_PROBE_KEEP_RECORDS", "1"}});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->enables, 1u) << r->out;
  EXPECT_EQ(r->disables, 0u) << r->out;
  EXPECT_NE(r->out.find("tracing off at"), std::string::npos) << "no stretch ended: nothing to drop\n" << r->out;
  ASSERT_EQ(r->report.sites.size(), 1u);
  EXPECT_EQ(r->report.sites[0].calls, 1500u);
  EXPECT_LT(r->report.sites[0].traced_calls, 1200u) << "the stretches held nearly every step: nothing to drop";
  EXPECT_NEAR(static_cast<double>(r->records), static_cast<double>(r->report.sites[0].traced_calls), 6.0) << r->out;
}

// SYNCLINT_PROBE_GPU_RECORDS=first: the record kinds are on in the first stretch only; the requested
// stretch after it traces the launches and the reads without switching the records on again, and the GPU
// model stands in for their records. Learned from the first stretch (the kernel of each step: 300 us, which
// each read waits for), it puts the GPU's idle time after each read back: about 12 us (the sync's return,
// the next launch's latency), where the stretch without modelled records would show a third of that.
// (How close the model comes to the records is checked where timing is exact: GpuModel.* and
// ProbeRecorded.TheGpuModelStandsInForTheLaterRecords; a stand-in host's spin loops are not.)
TEST_F(Injection, GpuRecordsFirstSwitchesTheRecordsOnlyForTheFirstStretchAndModelsTheRest) {
  use_stand_in_cupti();
  // The first stretch would go on until 1000 calls brought no new kind of GPU work: held to its 20 ms here.
  const auto r = play_record_setting({{"SYNCLINT_PROBE_GPU_RECORDS", "first"}, {"SYNCLINT_PROBE_FIRST_MAX_MS", "1"}});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->enables, 1u) << r->out;
  EXPECT_EQ(r->disables, 1u) << r->out;
  EXPECT_NE(r->out.find("tracing on at"), std::string::npos) << "no stretch after the first\n" << r->out;
  ASSERT_EQ(r->report.sites.size(), 1u);
  const SiteResult& site = r->report.sites[0];
  EXPECT_GT(site.traced_calls, 200u) << "the requested stretch traced no reads";
  EXPECT_LT(r->records, site.traced_calls / 2) << "records outside the first stretch";
  ASSERT_TRUE(r->modelled) << r->out;
  const auto [modelled, unknown] = *r->modelled;
  EXPECT_GT(modelled, 400u) << r->out;      // a kernel and a copy for each read of the stretch
  EXPECT_LE(unknown, modelled / 2 + 5) << r->out;  // the copies: the stand-in makes no copy records
  const double idle_us = site.gpu_idle_ms * 1e3 / static_cast<double>(site.traced_calls);
  EXPECT_GT(idle_us, 6.0) << "GPU idle after a traced read";
  EXPECT_GT(site.predicted_saving_ms, 0.0);
}

// SYNCLINT_PROBE_GPU_RECORDS picks the stretches with records: unset, as `first` (records in the first
// stretch, the later ones modelled); `all` switches them on again for the requested stretch and models
// nothing; `model` never switches them on and models every traced launch, the first stretch's too, from the
// syncs alone; `0` never switches them on and models nothing; another value is said and taken as `first`.
TEST_F(Injection, GpuRecordsSettingPicksTheStretchesWithRecords) {
  use_stand_in_cupti();
  struct Case {
    const char* value;  // nullptr: unset
    std::size_t enables;
    bool modelled;
    const char* reported;  // the report's run.gpu_records
  };
  for (const Case& c : {Case{nullptr, 1, true, "first"}, Case{"first", 1, true, "first"}, Case{"all", 2, false, "all"},
                        Case{"model", 0, true, "model"}, Case{"0", 0, false, "none"}, Case{"none", 0, false, "none"},
                        Case{"everywhere", 1, true, "first"}}) {
    std::vector<std::pair<const char*, const char*>> env = {{"SYNCLINT_PROBE_FIRST_MAX_MS", "1"}};
    if (c.value != nullptr) env.emplace_back("SYNCLINT_PROBE_GPU_RECORDS", c.value);
    const auto r = play_record_setting(env);
    ASSERT_TRUE(r);
    const std::string what = c.value != nullptr ? c.value : "(unset)";
    EXPECT_NE(r->out.find("tracing on at"), std::string::npos) << what << ": no stretch after the first\n" << r->out;
    if (c.enables == 2) EXPECT_GE(r->enables, 2u) << what << "\n" << r->out;
    else EXPECT_EQ(r->enables, c.enables) << what << "\n" << r->out;
    EXPECT_EQ(r->modelled.has_value(), c.modelled) << what << "\n" << r->out;
    EXPECT_EQ(r->out.find("SYNCLINT_PROBE_GPU_RECORDS=everywhere is not model, first, all or none; using first") != std::string::npos,
              what == "everywhere")
        << r->out;
    ASSERT_EQ(r->report.sites.size(), 1u) << what;
    EXPECT_EQ(r->report.sites[0].calls, 1500u) << what;
    EXPECT_EQ(r->report.run.gpu_records, c.reported) << what;
    if (r->report.run.gpu_records != "model") continue;
    EXPECT_EQ(r->records, 0u) << r->out;
    EXPECT_EQ(r->out.find("GPU records end"), std::string::npos) << r->out;
    ASSERT_TRUE(r->modelled) << r->out;
    const auto [modelled, unknown] = *r->modelled;
    // every traced read modelled (a kernel and a copy each; a read whose launch came just before its stretch
    // began is traced without it), none with a learned duration
    EXPECT_GE(modelled + 4, 2 * r->report.sites[0].traced_calls) << r->out;
    EXPECT_EQ(unknown, modelled) << r->out;
    EXPECT_GT(r->report.sites[0].predicted_saving_ms, 0.0) << r->out;
  }
  // Everything traced (SYNCLINT_PROBE_SAMPLE=1, also under --trace): by default, or with `first`, the records
  // stay on and nothing is modelled; `model` asked for by name models every traced launch all the same.
  for (const char* value : {static_cast<const char*>(nullptr), "first", "model"}) {
    std::vector<std::pair<const char*, const char*>> env = {{"SYNCLINT_PROBE_SAMPLE", "1"}, {"SYNCLINT_PROBE_DEBUG", "1"}};
    if (value != nullptr) env.emplace_back("SYNCLINT_PROBE_GPU_RECORDS", value);
    const std::string what = value != nullptr ? value : "(unset)";
    const bool model = what == "model";
    std::string out;
    const auto played = play_logged(env, "300", out, true);
    ASSERT_TRUE(played) << what << "\n" << out;
    EXPECT_EQ(out.find("modelled GPU activities") != std::string::npos, model) << what << "\n" << out;
    EXPECT_EQ(std::count_if(played->begin(), played->end(), [](const auto& e) { return e.first == "enable"; }), model ? 0 : 1)
        << what << "\n" << out;
    EXPECT_EQ(std::count_if(played->begin(), played->end(), [](const auto& e) { return e.first == "disable"; }), 0) << out;
    const std::optional<ProbeReport> report = report_named_in(out);
    ASSERT_TRUE(report) << out;
    EXPECT_EQ(report->run.gpu_records, model ? "model" : "all") << what;
  }
}

// `synclint probe --gpu-records` hands the setting to the probe, which names it in the report; without
// it the probe's default (first) holds, and --trace keeps the records on.
TEST_F(Injection, SynclintProbeGpuRecordsOptionPicksTheSetting) {
#ifndef SYNCLINT_EXE
  GTEST_SKIP() << "built without the synclint CLI";
#else
  use_stand_in_cupti(true);
  struct Case {
    std::vector<std::string> options;
    const char* reported;
  };
  for (const Case& c : {Case{{}, "first"}, Case{{"--gpu-records", "model"}, "model"}, Case{{"--gpu-records", "all"}, "all"},
                        Case{{"--gpu-records", "none"}, "none"}, Case{{"--trace", (dir_ / "t.json").string()}, "all"}}) {
    const fs::path report = dir_ / "r.json";
    std::vector<std::string> argv = {SYNCLINT_EXE, "probe", "-o", report.string()};
    argv.insert(argv.end(), c.options.begin(), c.options.end());
    argv.insert(argv.end(), {"--", FAKE_CUDA_HOST, PROBE_LIBRARY, FAKE_CUPTI, "100"});
    std::string out;
    ASSERT_TRUE(run_capture(argv, out)) << out;
    EXPECT_EQ(read_report(report).run.gpu_records, c.reported) << (c.options.empty() ? "(none)" : c.options[0]) << "\n" << out;
  }
  std::string out;
  EXPECT_FALSE(run_capture({"/bin/sh", "-c", "exec \"$@\" 2>&1", "sh", SYNCLINT_EXE, "probe", "--gpu-records", "sometimes",
                            "--", FAKE_CUDA_HOST},
                           out));
  EXPECT_NE(out.find("--gpu-records: sometimes not in {model,first,all,none}"), std::string::npos) << out;
#endif
}

// An overloaded host (FAKE_HOST_HOG: another thread spins on the program's CPU): each read's spinning sync is
// preempted about half the time and returns late. The probe measures each sync's wait for a CPU (its
// thread's run_delay), and without any GPU records the model leaves that time to the host: the reads'
// estimate stays near the fully recorded one. (Read as GPU work, it came out at a twentieth of it: 19 ms
// against 423.)
TEST_F(Injection, WithoutRecordsADescheduledSyncsLateReturnIsNotReadAsGpuWork) {
  use_stand_in_cupti();
  auto saving = [](std::vector<std::pair<const char*, const char*>> env, std::string& out) -> double {
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

// A program that launches its step as a CUDA graph (FAKE_HOST_GRAPH: three kernels per cudaGraphLaunch, all
// with its correlation id): the model learns the graph from the first stretch and models each traced
// launch of it later as known work; only the copies, whose records the stand-in never makes, are unknown.
TEST_F(Injection, TheModelLearnsAGraphLaunchAndModelsItLater) {
  use_stand_in_cupti();
  const auto r = play_record_setting(
      {{"SYNCLINT_PROBE_GPU_RECORDS", "first"}, {"SYNCLINT_PROBE_FIRST_MAX_MS", "1"}, {"FAKE_HOST_GRAPH", "1"}});
  ASSERT_TRUE(r);
  ASSERT_EQ(r->report.sites.size(), 1u);
  const SiteResult& site = r->report.sites[0];
  EXPECT_EQ(site.calls, 1500u);
  EXPECT_GT(site.traced_calls, 200u) << "the requested stretch traced no reads";
  // At least one graph launch's three kernels (the 1 ms stretch holds about 20 steps on an idle machine, a
  // few under load: the count is not the point, that a graph was recorded to learn from is).
  EXPECT_GE(r->records, 3u) << "the first stretch recorded no graph kernels";
  ASSERT_TRUE(r->modelled) << r->out;
  const auto [modelled, unknown] = *r->modelled;
  // A graph and a copy for each read traced after the first stretch (whose steps have 3 kernel records each).
  EXPECT_GE(modelled + 4, 2 * (site.traced_calls - r->records / 3)) << r->out;
  EXPECT_LE(unknown, modelled / 2 + 5) << r->out;             // the copies only: the graph was learned
  EXPECT_GT(site.predicted_saving_ms, 0.0);
}

// SYNCLINT_PROBE_SWITCH_AT_SYNC (on by default with GPU_RECORDS=first): a stretch's start and end switch the
// launch callback on and off on the program's thread, in its next sync's ENTER callback, where it is inside
// no launch. Here each step's launch call takes 290 us of its ~305 us: switched off by the window thread at
// any moment (SYNCLINT_PROBE_SWITCH_AT_SYNC=0), the callback is nearly always inside a launch (the stand-in
// logs "callback-off-inside"); switched at a sync, never, and every read is recorded.
TEST_F(Injection, SwitchAtSyncSwitchesTheLaunchCallbackOutsideALaunch) {
  use_stand_in_cupti();
  for (bool at_sync : {false, true}) {
    std::vector<std::pair<const char*, const char*>> env = {
        {"SYNCLINT_PROBE_GPU_RECORDS", "first"}, {"SYNCLINT_PROBE_FIRST_MAX_MS", "1"}, {"FAKE_HOST_LAUNCH_US", "290"}};
    if (!at_sync) env.emplace_back("SYNCLINT_PROBE_SWITCH_AT_SYNC", "0");
    else env.emplace_back("SYNCLINT_PROBE_SWITCH_AT_LAUNCH", "0");  // every switch left to the syncs
    const auto r = play_record_setting(env, "4000");
    ASSERT_TRUE(r);
    const std::string& out = r->out;
    const std::size_t ends = occurrences(out, "tracing off at"), starts = occurrences(out, "tracing on at");
    ASSERT_GE(ends, 2u) << "no stretch ended after the first\n" << out;
    ASSERT_GE(starts, 1u) << out;
    const auto line = out.find("launch callbacks switched by a sync ");
    if (!at_sync) {
      EXPECT_GE(r->off_inside, 1u) << "no switch-off came inside a launch: nothing for the setting to avoid\n" << out;
      EXPECT_EQ(line, std::string::npos) << out;
      continue;
    }
    EXPECT_EQ(r->off_inside, 0u) << out;
    ASSERT_NE(line, std::string::npos) << out;
    EXPECT_EQ(out.substr(line, out.find(';', line) - line),
              "launch callbacks switched by a sync " + std::to_string(ends + starts) + " times, by the window thread 0 times")
        << out;
    ASSERT_EQ(r->report.sites.size(), 1u);
    EXPECT_EQ(r->report.sites[0].calls, 4000u) << "reads lost";
    EXPECT_GT(r->report.sites[0].traced_calls, 200u) << "the requested stretch traced no reads";
  }
}

// SYNCLINT_PROBE_KEEP_CALLBACKS=1: the launch callbacks are switched on once, at the start, and never off, so
// no thread is ever inside a launch whose callback another thread switches. Outside the stretches a launch's
// callbacks return at once; inside them the launches are traced and modelled as before. The same run without
// it switches the launch callback off at each stretch's end.
TEST_F(Injection, KeepCallbacksNeverSwitchesTheLaunchCallbacks) {
  use_stand_in_cupti();
  for (bool keep : {false, true}) {
    std::vector<std::pair<const char*, const char*>> env = {
        {"SYNCLINT_PROBE_GPU_RECORDS", "first"}, {"SYNCLINT_PROBE_FIRST_MAX_MS", "1"}, {"FAKE_CUPTI_LOG_CALLBACKS", "1"}};
    if (keep) env.emplace_back("SYNCLINT_PROBE_KEEP_CALLBACKS", "1");
    const auto r = play_record_setting(env, "4000");
    ASSERT_TRUE(r);
    const std::string& out = r->out;
    ASSERT_GE(occurrences(out, "tracing off at"), 2u) << "no stretch ended after the first\n" << out;
    if (!keep) {
      EXPECT_GE(r->callbacks_off, 2u) << out;
      continue;
    }
    EXPECT_EQ(r->callbacks_off, 0u) << out;
    EXPECT_EQ(out.find("launch callbacks switched by a sync"), std::string::npos) << out;
    const auto line = out.find("launch callbacks kept on; ");
    ASSERT_NE(line, std::string::npos) << out;
    const unsigned long outside = std::strtoul(out.c_str() + line + 26, nullptr, 10);
    ASSERT_EQ(r->report.sites.size(), 1u);
    const SiteResult& site = r->report.sites[0];
    EXPECT_EQ(site.calls, 4000u) << "reads lost";
    EXPECT_GT(site.traced_calls, 200u) << "the requested stretch traced no reads";
    // One launch a step: those of the untraced steps returned at once, the traced ones were recorded.
    EXPECT_GE(outside + site.traced_calls, 3900u) << out;
    EXPECT_LE(outside + site.traced_calls, 4100u) << out;
    ASSERT_TRUE(r->modelled) << out;
    EXPECT_GT(r->modelled->first, 400u) << out;
    EXPECT_GT(site.gpu_idle_ms, 0.0);
    EXPECT_GT(site.predicted_saving_ms, 0.0);
  }
}

// From the probe's debug line at exit, how often a sync and how often the window thread switched the launch
// callbacks; nullopt when the line is missing.
std::optional<std::pair<unsigned long, unsigned long>> switches_by_sync_and_window(const std::string& out) {
  const auto line = out.find("launch callbacks switched by a sync ");
  if (line == std::string::npos) return std::nullopt;
  const auto window_at = out.find("by the window thread ", line);
  if (window_at == std::string::npos) return std::nullopt;
  return std::pair{std::strtoul(out.c_str() + line + 36, nullptr, 10), std::strtoul(out.c_str() + window_at + 21, nullptr, 10)};
}

// A switch left to the program's next sync, when none comes within 100 ms (here a read every 700 steps,
// about every 210 ms, host work in between), is made by the window thread, and the run goes on: every read
// is recorded. (The first stretch's records stay on while its end waits.)
TEST_F(Injection, SwitchAtSyncFallsBackToTheWindowThreadWithoutASync) {
  use_stand_in_cupti();
  const auto r = play_record_setting({{"SYNCLINT_PROBE_GPU_RECORDS", "first"},
                                      {"SYNCLINT_PROBE_FIRST_MAX_MS", "1"},
                                      {"FAKE_HOST_READ_EVERY", "700"},
                                      {"SYNCLINT_PROBE_SWITCH_AT_LAUNCH", "0"}},
                                     "4000");
  ASSERT_TRUE(r);
  const auto counts = switches_by_sync_and_window(r->out);
  ASSERT_TRUE(counts) << r->out;
  const auto [by_sync, by_window] = *counts;
  const std::size_t switches = occurrences(r->out, "tracing off at") + occurrences(r->out, "tracing on at");
  EXPECT_GE(by_window, 1u) << r->out;
  EXPECT_EQ(by_sync + by_window, switches) << r->out;
  ASSERT_EQ(r->report.sites.size(), 1u);
  EXPECT_EQ(r->report.sites[0].calls, 6u);  // steps 0, 700, ..., 3500
}

// SYNCLINT_PROBE_SWITCH_AT_LAUNCH (on by default): the same loop with few syncs has each stretch's end taken by the return of
// its next launch, on its own thread and outside every launch (the stand-in logs no "callback-off-inside"), and
// the window thread only switches stretches on (a launch's callbacks are off then); every read is recorded.
// A stretch every 200 ms, so that a run of about a second has several whatever the machine's pace.
TEST_F(Injection, SwitchAtLaunchEndsAStretchAtTheNextLaunchsReturn) {
  use_stand_in_cupti();
  const auto r = play_record_setting({{"SYNCLINT_PROBE_GPU_RECORDS", "first"},
                                      {"SYNCLINT_PROBE_FIRST_MAX_MS", "1"},
                                      {"FAKE_HOST_READ_EVERY", "700"},
                                      {"SYNCLINT_PROBE_SAMPLE", "0.1"}},
                                     "4000");
  ASSERT_TRUE(r);
  const std::string& out = r->out;
  const auto line = out.find("launch callbacks switched off at a launch's return ");
  ASSERT_NE(line, std::string::npos) << out;
  const unsigned long by_launch = std::strtoul(out.c_str() + line + 51, nullptr, 10);
  const auto counts = switches_by_sync_and_window(out);
  ASSERT_TRUE(counts) << out;
  const auto [by_sync, by_window] = *counts;
  const std::size_t ends = occurrences(out, "tracing off at"), starts = occurrences(out, "tracing on at");
  ASSERT_GE(ends, 2u) << "no stretch ended after the first\n" << out;
  EXPECT_EQ(by_launch + by_sync + by_window, ends + starts) << out;
  EXPECT_GE(by_launch, ends - 1) << out;  // the last end may come at exit, with no launch after it
  EXPECT_LE(by_window, starts) << out;
  EXPECT_EQ(r->off_inside, 0u) << out;
  ASSERT_EQ(r->report.sites.size(), 1u);
  EXPECT_EQ(r->report.sites[0].calls, 6u);  // steps 0, 700, ..., 3500
}

// SYNCLINT_PROBE_RECORDS_OFF_AT_SWITCH (on unless 0): with records in every stretch, switched at the program's
// syncs and launches, and few syncs, each stretch's end that a launch's return takes on the program's thread
// switches the kernel records off there too (the stand-in logs "disable-on-host-thread"), as many times as the
// probe's debug line says, and every read is recorded; set to 0, the window thread switches every record kind
// off, never the program's thread. With the defaults (records in the first stretch only), the first
// stretch's records are switched off once, on the program's thread.
TEST_F(Injection, RecordsOffAtSwitchSwitchesTheRecordsOffOnTheProgramsThread) {
  use_stand_in_cupti();
  struct Case {
    const char* records;    // SYNCLINT_PROBE_GPU_RECORDS; nullptr: unset (first)
    const char* at_switch;  // SYNCLINT_PROBE_RECORDS_OFF_AT_SWITCH; nullptr: unset (on)
  };
  for (const Case& c : {Case{"all", "0"}, Case{"all", nullptr}, Case{"all", "1"}, Case{nullptr, nullptr}}) {
    const bool all = c.records != nullptr, on = c.at_switch == nullptr || std::string(c.at_switch) != "0";
    SCOPED_TRACE(std::string(all ? "all" : "(default)") + ", records off at switch " + (c.at_switch ? c.at_switch : "(unset)"));
    std::vector<std::pair<const char*, const char*>> env = {{"FAKE_HOST_READ_EVERY", "700"}, {"SYNCLINT_PROBE_SAMPLE", "0.1"}};
    if (all) env.insert(env.end(), {{"SYNCLINT_PROBE_GPU_RECORDS", c.records}, {"SYNCLINT_PROBE_SWITCH_AT_SYNC", "1"}});  // off by default with `all`
    else env.emplace_back("SYNCLINT_PROBE_FIRST_MAX_MS", "1");
    if (c.at_switch != nullptr) env.emplace_back("SYNCLINT_PROBE_RECORDS_OFF_AT_SWITCH", c.at_switch);
    const auto r = play_record_setting(env, "4000");
    ASSERT_TRUE(r);
    const std::string& out = r->out;
    const std::size_t ends = occurrences(out, "tracing off at");
    ASSERT_GE(ends, 2u) << "no stretch ended after the first\n" << out;
    ASSERT_EQ(r->report.sites.size(), 1u);
    EXPECT_EQ(r->report.sites[0].calls, 6u);  // steps 0, 700, ..., 3500
    const std::string by_program_line = "GPU records switched off on the program's thread ";
    const auto line = out.find(by_program_line);
    if (!on) {
      EXPECT_GE(r->disables, ends - 1) << out;
      EXPECT_EQ(r->disables_on_host, 0u) << out;
      EXPECT_EQ(line, std::string::npos) << out;
      continue;
    }
    ASSERT_NE(line, std::string::npos) << out;
    const unsigned long by_program = std::strtoul(out.c_str() + line + by_program_line.size(), nullptr, 10);
    EXPECT_EQ(r->disables_on_host, by_program) << out;
    if (!all) {  // only the first stretch had records
      EXPECT_EQ(r->enables, 1u) << out;
      EXPECT_EQ(by_program, 1u) << out;
      EXPECT_EQ(r->disables, 1u) << out;
      continue;
    }
    EXPECT_GE(r->disables, ends - 1) << out;
    EXPECT_GE(by_program, ends - 1) << out;  // the last end may come at exit, with no launch after it
    EXPECT_EQ(r->disables, r->disables_on_host + (ends - by_program)) << out;
  }
}

// With SYNCLINT_PROBE_GPU_RECORDS=first the first stretch is the model's only source: it goes on past its
// 20 ms until 1000 launches, copies and reads in a row brought nothing it had not seen (and as many as
// before the last new one: here the first step's). The stand-in host queues a kernel and a copy and syncs
// on them each step, about 0.3 ms apart: 334 steps, then up to 100 ms until the window thread looks again;
// one kernel record a step. Then the records go off for good.
TEST_F(Injection, TheModelsFirstStretchLastsUntilTheLaunchesShowNoNewKernel) {
  use_stand_in_cupti();
  const auto r = play_record_setting({{"SYNCLINT_PROBE_GPU_RECORDS", "first"}});
  ASSERT_TRUE(r);
  EXPECT_NE(r->out.find("first stretch extended at"), std::string::npos) << r->out;
  ASSERT_EQ(r->report.sites.size(), 1u);
  EXPECT_GE(r->records, 334u) << "the records stopped before the calls settled\n" << r->out;
  EXPECT_LT(r->records, 1000u) << "the records went on long after the calls settled\n" << r->out;
}

// SYNCLINT_PROBE_GPU_RECORD_KINDS (a diagnostic) picks the Activity API kinds that the stretches switch on;
// an unknown name is reported and all three are recorded.
TEST_F(Injection, GpuRecordKindsPicksTheActivityKindsTheStretchesSwitch) {
  use_stand_in_cupti();
  const auto switched_on = [&](const char* kinds, std::string& out) {
    // stderr too, where the probe reports a bad setting
    const auto played = play_logged({{"SYNCLINT_PROBE_GPU_RECORDS", "first"},
                                     {"SYNCLINT_PROBE_GPU_RECORD_KINDS", kinds},
                                     {"FAKE_CUPTI_LOG_ALL_KINDS", "1"}},
                                    "50", out, true);
    EXPECT_TRUE(played) << out;
    std::set<std::string> on;
    for (const auto& [event, at] : played.value_or(decltype(played)::value_type{}))
      if (event.rfind("enable", 0) == 0) on.insert(event);
    return on;
  };
  const std::string memcpy_on = "enable-" + std::to_string(static_cast<int>(CUPTI_ACTIVITY_KIND_MEMCPY));
  const std::string memset_on = "enable-" + std::to_string(static_cast<int>(CUPTI_ACTIVITY_KIND_MEMSET));
  std::string out;
  EXPECT_EQ(switched_on("memset", out), (std::set<std::string>{memset_on}));
  EXPECT_EQ(switched_on("kernel,memcpy", out), (std::set<std::string>{"enable", memcpy_on}));
  EXPECT_EQ(switched_on("kernel,dma", out), (std::set<std::string>{"enable", memcpy_on, memset_on}));
  EXPECT_NE(out.find("SYNCLINT_PROBE_GPU_RECORD_KINDS: unknown kind 'dma'"), std::string::npos) << out;
}

// The same from Python (ctypes, the GIL released in the calls), ending in an uncaught exception: the
// report is written at the interpreter's exit and names the Python line of the read's call; the GPU idle
// after it comes from the first stretch's GPU records.
TEST_F(Injection, APythonLoopEndingInAnUncaughtExceptionStillReportsItsReads) {
  const std::string python = find_on_path("python3");
  ASSERT_FALSE(python.empty()) << "python3 is needed for this test";
  setenv("SYNCLINT_CUPTI_PATH", FAKE_CUPTI, 1);
  setenv("SYNCLINT_PROBE_GPU_RECORDS", "first", 1);
  const std::string script = std::string(PROBE_TEST_DATA) + "/fake_train.py";
  std::string out;
  EXPECT_FALSE(run_capture({python, script, PROBE_LIBRARY, FAKE_CUPTI, "60"}, out));  // exit status 1
  const fs::path report = dir_ / ("report-" + out.substr(0, out.find('\n')) + ".json");
  ASSERT_TRUE(fs::exists(report)) << out;
  const ProbeReport r = read_report(report);
  ASSERT_EQ(r.sites.size(), 1u);
  const SiteResult& s = r.sites[0];
  EXPECT_EQ(s.site.path, script);
  EXPECT_EQ(s.site.language, "python");
  EXPECT_EQ(s.site.function, "api");
  EXPECT_EQ(s.calls, 60u);
  EXPECT_GT(s.gpu_idle_ms, 0.0);
  EXPECT_GT(s.predicted_saving_ms, 0.0);
}

// One process per rank, as torchrun starts them: each writes report-rank<R>-<pid>.json and `synclint
// probe` merges them into one ranked site with both ranks' reads.
TEST_F(Injection, SynclintProbeMergesTheReportsOfTwoRanks) {
#ifndef SYNCLINT_EXE
  GTEST_SKIP() << "built without the synclint CLI";
#else
  use_stand_in_cupti(true);
  const fs::path report = dir_ / "merged.json", kept = dir_ / "kept";
  const std::string host = std::string(FAKE_CUDA_HOST) + " " + PROBE_LIBRARY + " " + FAKE_CUPTI;
  const std::string ranks = "RANK=0 " + host + " 40 & RANK=1 " + host + " 60; wait";
  std::string out;
  const bool ran = run_capture({SYNCLINT_EXE, "probe", "-o", report.string(), "--keep-dir", kept.string(), "--", "/bin/sh", "-c", ranks}, out);
  ASSERT_TRUE(ran) << out;
  int per_rank = 0;
  for (const auto& e : fs::directory_iterator(kept))
    per_rank += e.path().filename().string().starts_with("report-rank");
  EXPECT_EQ(per_rank, 2);
  const ProbeReport r = read_report(report);
  EXPECT_EQ(r.runs.size(), 2u);
  EXPECT_EQ(r.run.rank, 0);
  ASSERT_EQ(r.sites.size(), 1u);
  EXPECT_EQ(r.sites[0].calls, 100u);
  EXPECT_EQ(r.syncs, 100u);
#endif
}

TEST_F(Injection, ACuptiHeldByAnotherSubscriberGivesAReportSayingWhy) {
  setenv("SYNCLINT_CUPTI_PATH", FAKE_CUPTI, 1);
  setenv("FAKE_CUPTI_BUSY", "1", 1);
  std::string out;
  ASSERT_TRUE(run_capture({FAKE_CUDA_HOST, PROBE_LIBRARY, FAKE_CUPTI, "5"}, out)) << "the program must run on: " << out;
  const std::string pid = out.substr(0, out.find('\n'));
  const ProbeReport r = read_report(dir_ / ("report-" + pid + ".json"));
  EXPECT_NE(r.run.status.find("CUPTI_ERROR_FAKE"), std::string::npos) << r.run.status;  // the stand-in's text
  EXPECT_NE(r.run.status.find("another CUPTI client holds it"), std::string::npos) << r.run.status;
  EXPECT_TRUE(r.sites.empty());
}

}  // namespace
}  // namespace synclint::probe::inject
