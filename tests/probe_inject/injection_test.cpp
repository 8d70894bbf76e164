// The injection's life in a process: without a driver or CUPTI, or with CUPTI held by another client, the
// program runs on and a report says why; the report is written however the program ends (exit, an uncaught
// Python exception, SIGTERM); a fault's stack is printed in debug mode; bad settings are said and the
// defaults used.
#include <string>

#include "analysis/report_io.h"

#include "injection_fixture.h"

namespace synclint::probe::inject {
namespace {

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
  const fs::path report = report_of(out);
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
  const fs::path report = report_of(out);
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

// A setting the probe does not know and values it cannot read are each said once on stderr, and the
// defaults stand in for them: the program runs on and its report is complete.
TEST_F(Injection, UnknownSettingsAndBadValuesAreSaidAndTheDefaultsUsed) {
  use_stand_in_cupti();
  std::string out;
  const auto played = play_logged(
      {{"SYNCLINT_PROBE_FOO", "1"}, {"SYNCLINT_PROBE_WINDOW_MS", "soon"}, {"SYNCLINT_PROBE_SAMPLE", "2"}}, "200", out, true);
  ASSERT_TRUE(played) << out;
  EXPECT_EQ(occurrences(out, "synclint-probe: SYNCLINT_PROBE_FOO is not a setting of the probe; ignored\n"), 1u) << out;
  EXPECT_EQ(occurrences(out, "synclint-probe: SYNCLINT_PROBE_WINDOW_MS=soon is not a whole number of at least 1; using 2000\n"), 1u)
      << out;
  EXPECT_EQ(occurrences(out, "synclint-probe: SYNCLINT_PROBE_SAMPLE=2 is not a fraction in (0, 1]; using 0.01\n"), 1u) << out;
  EXPECT_EQ(occurrences(out, "synclint-probe: "), 3u) << out;
  const ProbeReport r = read_report(report_of(out));
  EXPECT_EQ(r.run.status, "ok");
  EXPECT_EQ(r.run.gpu_records, "first");  // sampled, as by default (SYNCLINT_PROBE_SAMPLE=1 would give `all`)
  EXPECT_EQ(r.syncs, 200u);
  ASSERT_EQ(r.sites.size(), 1u);
  EXPECT_EQ(r.sites[0].calls, 200u);
  EXPECT_GT(r.sites[0].predicted_saving_ms, 0.0);
}

}  // namespace
}  // namespace synclint::probe::inject
