// The probe fault-injection matrix (docs/reliability.md, "Probe fault injection"): fault_host ends in every
// bad way a training job can, once unprobed and once under the probe with the stand-in CUPTI. Each case
// checks that the program's output and exit status (or signal) are the unprobed run's, that nothing runs
// past its time limit, and that the report is complete or marked partial with the reason; the last cases
// do the same through `synclint probe`.
#include <sys/resource.h>

#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/report_io.h"
#include "fault_runner.h"
#include "injection_fixture.h"

namespace synclint::probe::inject {
namespace {

// The output without the lines that are a pid (each process prints its own first).
std::string without_pids(const std::string& out) {
  std::istringstream in(out);
  std::string line, kept;
  while (std::getline(in, line))
    if (line.empty() || line.find_first_not_of("0123456789") != std::string::npos) kept += line + "\n";
  return kept;
}

class ProbeFault : public Injection {
 protected:
  void SetUp() override {
    Injection::SetUp();
    use_stand_in_cupti();
    io_ = dir_.string() + "-io";  // the reports of `synclint probe`
    fs::create_directories(io_);
    rlimit none{0, 0};
    setrlimit(RLIMIT_CORE, &none);  // a program killed by SIGSEGV leaves no core file
  }
  void TearDown() override {
    fs::remove_all(io_);
    Injection::TearDown();
  }
  // Runs `mode` unprobed, then probed; expects both to end the same way with the same output. Returns the
  // probed run.
  Ended play(const char* mode, const char* steps = "100") {
    const Ended bare = run_bounded({FAULT_HOST, "-", FAKE_CUPTI, steps, mode});
    const Ended probed = run_bounded({FAULT_HOST, PROBE_LIBRARY, FAKE_CUPTI, steps, mode});
    EXPECT_FALSE(bare.hung) << mode;
    EXPECT_FALSE(probed.hung) << mode << ": the probed program ran past its limit\n" << probed.err;
    EXPECT_EQ(describe(probed), describe(bare)) << mode << "\n" << probed.err;
    EXPECT_EQ(without_pids(probed.out), without_pids(bare.out)) << mode;
    return probed;
  }
  // The reports in the probe's folder; no temporary file may be left beside them.
  std::vector<ProbeReport> reports() const {
    std::vector<ProbeReport> found;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir_, ec)) {
      const std::string name = e.path().filename().string();
      EXPECT_FALSE(name.ends_with(".tmp")) << name;
      if (name.starts_with("report-")) found.push_back(read_report(e.path()));
    }
    return found;
  }
  // The one report, complete: status ok, one site with `calls` reads (at least `calls` with `at_least`).
  void expect_complete(std::uint64_t calls, bool at_least = false) const {
    const auto found = reports();
    ASSERT_EQ(found.size(), 1u);
    const ProbeReport& r = found[0];
    EXPECT_EQ(r.run.status, "ok");
    ASSERT_EQ(r.sites.size(), 1u);
    if (at_least) EXPECT_GE(r.sites[0].calls, calls);
    else EXPECT_EQ(r.sites[0].calls, calls);
    EXPECT_EQ(fs::path(r.sites[0].site.path).filename(), "fault_host.cpp");
  }
  // The one report, marked partial: its status names `reason`.
  void expect_partial(const std::string& reason) const {
    const auto found = reports();
    ASSERT_EQ(found.size(), 1u);
    EXPECT_TRUE(found[0].run.status.starts_with("partial: ")) << found[0].run.status;
    EXPECT_NE(found[0].run.status.find(reason), std::string::npos) << found[0].run.status;
  }
  fs::path io_;
};

TEST_F(ProbeFault, ForkedChildKeepsRunning) {
  const Ended e = play("fork-run");
  EXPECT_NE(e.out.find("child done\nchild exited 7\n"), std::string::npos) << e.out;
  expect_complete(100);  // the child's reads are not the parent's, and the child writes no report
}

TEST_F(ProbeFault, ForkedChildExits) {
  const Ended e = play("fork-exit");
  EXPECT_NE(e.out.find("child exited 5\n"), std::string::npos) << e.out;
  expect_complete(100);
}

TEST_F(ProbeFault, ForkedChildExecsAProgramThatUsesCuda) {
  const Ended e = play("fork-exec");
  EXPECT_NE(e.out.find("child exited 0\n"), std::string::npos) << e.out;
  std::multiset<std::uint64_t> calls;
  for (const ProbeReport& r : reports()) {
    EXPECT_EQ(r.run.status, "ok");
    for (const SiteResult& s : r.sites) calls.insert(s.calls);
  }
  EXPECT_EQ(calls, (std::multiset<std::uint64_t>{50, 100}));  // the parent's and the exec'd child's own
}

TEST_F(ProbeFault, ExecReplacesTheProgram) {
  const Ended e = play("exec");
  EXPECT_EQ(e.status, 3);
  EXPECT_NE(e.out.find("exec ran\n"), std::string::npos) << e.out;
  expect_partial("exec");
}

TEST_F(ProbeFault, ExitFromAWorkerThreadWhileOthersLaunch) {
  EXPECT_EQ(play("thread-exit").status, 9);
  expect_complete(50, true);
}

TEST_F(ProbeFault, Sigsegv) {
  EXPECT_EQ(play("segv").signal, SIGSEGV);
  expect_partial("signal");
}

TEST_F(ProbeFault, SigtermWhileTheStepsGoOn) {
  EXPECT_EQ(play("term").signal, SIGTERM);
  expect_complete(50, true);
}

TEST_F(ProbeFault, SigintWhileTheStepsGoOn) {
  EXPECT_EQ(play("int").signal, SIGINT);
  expect_complete(50, true);
}

// A program with its own SIGINT handler (Python's KeyboardInterrupt) that ends by the signal after the probe's
// handler is gone: the report, written when the signal came, covers the run up to it.
TEST_F(ProbeFault, SigintHandledByTheProgram) {
  EXPECT_EQ(play("int-handled").signal, SIGINT);
  expect_complete(50, true);
}

// The same signal twice, as when a signal to the whole job is also forwarded by a launcher: the second
// must not cut the first one's report short.
TEST_F(ProbeFault, SigtermDeliveredTwice) {
  EXPECT_EQ(play("term-twice").signal, SIGTERM);
  expect_complete(50, true);
}

TEST_F(ProbeFault, SigtermToTheWholeProcessGroup) {
  EXPECT_EQ(play("group-term").signal, SIGTERM);
  expect_complete(50, true);
}

TEST_F(ProbeFault, Sigkill) {
  EXPECT_EQ(play("kill").signal, SIGKILL);
  expect_partial("SIGKILL");
}

// No file can be written at the end (RLIMIT_FSIZE, as on a full disk): the program still exits 0, the
// probe says why on stderr and leaves no temporary file; the report started with the run says partial.
TEST_F(ProbeFault, ReportCannotBeWritten) {
  for (const char* mode : {"fsize", "fsize-ignored"}) {
    const Ended e = play(mode);
    EXPECT_EQ(e.status, 0) << mode;
    EXPECT_NE(e.err.find("synclint probe: cannot write"), std::string::npos) << mode << "\n" << e.err;
    expect_partial("not written");
    fs::remove_all(dir_);
  }
}

TEST_F(ProbeFault, ProbeFolderRemovedDuringTheRun) {
  EXPECT_EQ(play("rmdir").status, 0);
  expect_complete(100);
}

TEST_F(ProbeFault, SixtyFourThreadsLaunchingWork) {
  EXPECT_EQ(play("threads64", "20").status, 0);
  expect_complete(64 * 20);
}

TEST_F(ProbeFault, InitializedTwice) {
  EXPECT_EQ(play("init-twice").status, 0);
  expect_complete(100);
}

#ifdef SYNCLINT_EXE
// `synclint probe` around a program: (argv after --, options before it).
Ended probe_cli(const std::vector<std::string>& options, const char* mode, const char* steps = "100") {
  std::vector<std::string> argv = {SYNCLINT_EXE, "probe"};
  argv.insert(argv.end(), options.begin(), options.end());
  argv.insert(argv.end(), {"--", FAULT_HOST, PROBE_LIBRARY, FAKE_CUPTI, steps, mode});
  return run_bounded(argv);
}

// SIGKILL cannot be caught: `synclint probe` says the program was killed and that its report is partial.
TEST_F(ProbeFault, SynclintProbeSaysTheProgramWasKilled) {
  use_stand_in_cupti(true);
  const fs::path report = io_ / "r.json";
  const Ended e = probe_cli({"-o", report.string()}, "kill");
  EXPECT_EQ(describe(e), "exit 137") << e.err;
  EXPECT_NE(e.err.find("was killed by signal 9 (SIGKILL"), std::string::npos) << e.err;
  EXPECT_NE(e.err.find("warning: partial: "), std::string::npos) << e.err;
  EXPECT_TRUE(read_report(report).run.status.starts_with("partial: ")) << e.err;
}

// A scheduler's SIGTERM to the whole job reaches both `synclint probe` (which forwards it) and the program.
TEST_F(ProbeFault, SynclintProbeWithSigtermToTheProcessGroup) {
  use_stand_in_cupti(true);
  const fs::path report = io_ / "r.json";
  const Ended e = probe_cli({"-o", report.string()}, "group-term");
  EXPECT_EQ(describe(e), "exit 143") << e.err;
  EXPECT_NE(e.err.find("was killed by signal 15 (SIGTERM"), std::string::npos) << e.err;
  const ProbeReport r = read_report(report);
  EXPECT_EQ(r.run.status, "ok");
  ASSERT_EQ(r.sites.size(), 1u) << e.err;
  EXPECT_GE(r.sites[0].calls, 50u);
}

// The merged report cannot be written (a full disk): the program's own exit status stays, the error says
// where the per-process reports are kept.
TEST_F(ProbeFault, SynclintProbeOnAFullDisk) {
  use_stand_in_cupti(true);
  const Ended e = probe_cli({"-o", "/dev/full"}, "exit3");
  EXPECT_EQ(describe(e), "exit 3") << e.err;
  EXPECT_NE(e.err.find("/dev/full"), std::string::npos) << e.err;
  EXPECT_NE(e.err.find("the per-process reports are kept in "), std::string::npos) << e.err;
  const auto kept = e.err.find("the per-process reports are kept in ");
  if (kept != std::string::npos) {
    const std::string rest = e.err.substr(kept + 36);
    fs::remove_all(rest.substr(0, rest.find(' ')));
  }
}

// The probe's temporary folder removed while the program runs: the report still comes (the folder is made
// again); the trace, written as the program runs, is lost, and the probe says so.
TEST_F(ProbeFault, SynclintProbeWithItsFolderRemoved) {
  use_stand_in_cupti(true);
  const fs::path report = io_ / "r.json", trace = io_ / "t.json";
  const Ended e = probe_cli({"-o", report.string(), "--trace", trace.string()}, "rmdir");
  EXPECT_EQ(describe(e), "exit 0") << e.err;
  const ProbeReport r = read_report(report);
  EXPECT_EQ(r.run.status, "ok");
  ASSERT_EQ(r.sites.size(), 1u);
  EXPECT_EQ(r.sites[0].calls, 100u);
  EXPECT_NE(e.err.find("synclint probe: the trace "), std::string::npos) << e.err;
  EXPECT_NE(e.err.find(" was removed while the program ran: it is lost"), std::string::npos) << e.err;
  EXPECT_FALSE(fs::exists(trace)) << e.err;
}
#endif

}  // namespace
}  // namespace synclint::probe::inject
