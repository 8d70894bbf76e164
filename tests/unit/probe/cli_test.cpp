// `synclint probe`, `probe merge` and `probe report` end to end, without a GPU: SYNCLINT_PROBE_LIBRARY
// names a stand-in file and the probed command writes the per-process reports the real probe would.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <array>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "analysis/report_io.h"

namespace synclint::probe {
namespace {

namespace fs = std::filesystem;

struct Result {
  int status = -1;
  std::string out;  // stdout and stderr
};

Result run(const std::string& command) {
  Result r;
  FILE* p = ::popen((command + " 2>&1").c_str(), "r");
  if (p == nullptr) return r;
  std::array<char, 4096> buf{};
  std::size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  const int st = ::pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

class ProbeCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("synclint-probe-cli-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    std::ofstream(dir_ / "fake.so") << "not a library";
    ::setenv("SYNCLINT_PROBE_LIBRARY", (dir_ / "fake.so").c_str(), 1);
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path write_report(const std::string& name, std::int32_t rank, double saving, std::string status = "ok") {
    ProbeReport r;
    r.run.command = {"python3", "train.py"};
    r.run.cwd = dir_.string();
    r.run.pid = 100 + rank;
    r.run.rank = rank;
    r.run.wall_ms = 1000;
    r.run.status = std::move(status);
    r.runs = {r.run};
    if (saving > 0) {
      SiteResult s;
      s.site = {(dir_ / "train.py").string(), 42, "step", "python"};
      s.api = "cudaStreamSynchronize";
      s.rule_guess = "SYNC001|SYNC003";
      s.calls = 300;
      s.host_blocked_ms = 2 * saving;
      s.gpu_idle_ms = saving;
      s.predicted_saving_ms = saving;
      r.sites.push_back(s);
      r.syncs = 300;
    }
    const fs::path p = dir_ / name;
    probe::write_report(r, p);
    return p;
  }

  std::string synclint() const { return std::string(SYNCLINT_EXE); }
  fs::path dir_;
};

TEST_F(ProbeCli, RunsTheCommandMergesItsReportsAndKeepsItsExitStatus) {
  const auto r0 = write_report("r0.json", 0, 6), r1 = write_report("r1.json", 1, 4);
  const fs::path out = dir_ / "merged.json";
  const std::string script = "test -n \"$CUDA_INJECTION64_PATH\" && cp " + r0.string() +
                             " \"$SYNCLINT_PROBE_DIR/report-rank0-100.json\" && cp " + r1.string() +
                             " \"$SYNCLINT_PROBE_DIR/report-rank1-101.json\" && exit 3";
  const Result res = run(synclint() + " probe -o " + out.string() + " -- sh -c '" + script + "'");
  EXPECT_EQ(res.status, 3) << res.out;
  EXPECT_NE(res.out.find("train.py:42 (step) cudaStreamSynchronize"), std::string::npos) << res.out;
  EXPECT_NE(res.out.find("sh exited with status 3"), std::string::npos) << res.out;
  const ProbeReport merged = read_report(out);
  EXPECT_EQ(merged.runs.size(), 2u);
  ASSERT_EQ(merged.sites.size(), 1u);
  EXPECT_EQ(merged.sites[0].calls, 600u);
  EXPECT_DOUBLE_EQ(merged.sites[0].predicted_saving_ms, 10);
}

TEST_F(ProbeCli, WritesTheTraceAndSaysWhenItStoppedAtItsLimit) {
  const auto r0 = write_report("r0.json", -1, 6);
  const std::string whole = R"({"displayTimeUnit":"ns","traceEvents":[{"ph":"X","name":"k","pid":1,"tid":1,"ts":0,"dur":1}],"otherData":{"synclint_origin_ns":5}})";
  const std::string cut = R"({"displayTimeUnit":"ns","traceEvents":[{"ph":"X","name":"k","pid":1,"tid":1,"ts":0,"dur":1}],"otherData":{"synclint_origin_ns":5,"synclint_truncated_after_events":1}})";
  for (const std::string& doc : {whole, cut}) {
    std::ofstream(dir_ / "t.json") << doc;
    const fs::path trace = dir_ / "trace.json";
    const std::string script = "test \"$SYNCLINT_PROBE_TRACE\" = 1 && cp " + r0.string() + " \"$SYNCLINT_PROBE_DIR/report-100.json\" && cp " +
                               (dir_ / "t.json").string() + " \"$SYNCLINT_PROBE_DIR/trace-100.json\"";
    const Result res = run(synclint() + " probe -o " + (dir_ / "r.json").string() + " --trace " + trace.string() + " -- sh -c '" + script + "'");
    EXPECT_EQ(res.status, 0) << res.out;
    std::ifstream in(trace);
    EXPECT_EQ(std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>()), doc + "\n");
    EXPECT_EQ(res.out.find("stops at its event limit") != std::string::npos, doc == cut) << res.out;
  }
}

// --torch-ops hands the shim to the probe by its absolute path; a shim that is not there is refused before
// the command runs.
TEST_F(ProbeCli, HandsTheTorchOpsShimToTheProbe) {
  const auto r0 = write_report("r0.json", -1, 6);
  const fs::path shim = dir_ / "libshim.so";
  std::ofstream(shim) << "not a library: the probe opens it, not synclint";
  const fs::path seen = dir_ / "seen.txt";
  const std::string script = "printf %s \"$SYNCLINT_PROBE_TORCH_OPS\" > " + seen.string() + " && cp " + r0.string() +
                             " \"$SYNCLINT_PROBE_DIR/report-100.json\"";
  Result res = run("cd " + dir_.string() + " && " + synclint() + " probe -o r.json --torch-ops libshim.so -- sh -c '" +
                   script + "'");
  EXPECT_EQ(res.status, 0) << res.out;
  std::ifstream in(seen);
  EXPECT_EQ(std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>()), shim.string());

  const fs::path ran = dir_ / "ran.txt";
  res = run(synclint() + " probe -o " + (dir_ / "x.json").string() + " --torch-ops " + (dir_ / "none.so").string() +
            " -- touch " + ran.string());
  EXPECT_NE(res.status, 0) << res.out;
  EXPECT_NE(res.out.find("none.so"), std::string::npos) << res.out;
  EXPECT_FALSE(fs::exists(ran)) << "the command ran with a missing shim";
}

TEST_F(ProbeCli, PassesTheCommandAndItsOptionsUnchanged) {
  const fs::path args = dir_ / "args.txt";
  run(synclint() + " probe -o " + (dir_ / "r.json").string() + " -- sh -c 'printf \"%s|\" \"$@\" > " +
      args.string() + "' x a --mode b -- c -o d");
  std::ifstream in(args);
  const std::string got((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(got, "a|--mode|b|--|c|-o|d|");
}

TEST_F(ProbeCli, SaysWhyThereIsNoReport) {
  Result res = run(synclint() + " probe -o " + (dir_ / "x.json").string() + " -- true");
  EXPECT_EQ(res.status, 2);
  EXPECT_NE(res.out.find("made no CUDA calls"), std::string::npos) << res.out;
  EXPECT_FALSE(fs::exists(dir_ / "x.json"));

  // A crash: named as such, with the way to the faulting stack, and the shell's status kept.
  res = run(synclint() + " probe -o " + (dir_ / "x.json").string() + " -- sh -c 'ulimit -c 0; kill -SEGV $$'");
  EXPECT_EQ(res.status, 128 + SIGSEGV) << res.out;
  EXPECT_NE(res.out.find("sh was killed by signal 11 (SIGSEGV"), std::string::npos) << res.out;
  EXPECT_NE(res.out.find("SYNCLINT_PROBE_DEBUG=1"), std::string::npos) << res.out;
  EXPECT_EQ(res.out.find("made no CUDA calls"), std::string::npos) << res.out;

  const auto busy = write_report("busy.json", -1, 0,
                                 "cupti-unavailable: cuptiSubscribe failed: CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED");
  res = run(synclint() + " probe -o " + (dir_ / "y.json").string() + " -- sh -c 'cp " + busy.string() +
            " \"$SYNCLINT_PROBE_DIR/report-7.json\"'");
  EXPECT_EQ(res.status, 2) << res.out;
  EXPECT_NE(res.out.find("another profiler holds CUPTI"), std::string::npos) << res.out;

  res = run(synclint() + " probe");
  EXPECT_EQ(res.status, 2);
  EXPECT_NE(res.out.find("no command to run"), std::string::npos) << res.out;
}

TEST_F(ProbeCli, ChecksWhereTheReportGoesBeforeRunningAndKeepsTheMeasurementsWhenItCannotWriteThem) {
  // Nowhere to write: said before the command runs (it would create ran.txt).
  const fs::path ran = dir_ / "ran.txt";
  Result res = run(synclint() + " probe -o " + (dir_ / "missing" / "r.json").string() + " -- touch " + ran.string());
  EXPECT_EQ(res.status, 2) << res.out;
  EXPECT_NE(res.out.find("cannot write the report to " + (dir_ / "missing" / "r.json").string()), std::string::npos) << res.out;
  EXPECT_NE(res.out.find("checked before running the command"), std::string::npos) << res.out;
  EXPECT_FALSE(fs::exists(ran));
  res = run(synclint() + " probe -o " + (dir_ / "r.json").string() + " --trace " + dir_.string() + " -- touch " + ran.string());
  EXPECT_EQ(res.status, 2) << res.out;
  EXPECT_NE(res.out.find("cannot write the trace to"), std::string::npos) << res.out;
  EXPECT_FALSE(fs::exists(ran));
  EXPECT_FALSE(fs::exists(dir_ / "r.json"));  // the check leaves nothing behind

  // The folder goes away while the command runs: the table is still shown, and the per-process report is
  // kept where synclint says.
  const auto r0 = write_report("r0.json", -1, 6);
  fs::create_directories(dir_ / "out");
  res = run(synclint() + " probe -o " + (dir_ / "out" / "r.json").string() + " -- sh -c 'cp " + r0.string() +
            " \"$SYNCLINT_PROBE_DIR/report-100.json\" && rm -r " + (dir_ / "out").string() + "'");
  EXPECT_EQ(res.status, 2) << res.out;
  EXPECT_NE(res.out.find("train.py:42 (step) cudaStreamSynchronize"), std::string::npos) << res.out;
  const auto at = res.out.find("the per-process reports are kept in ");
  ASSERT_NE(at, std::string::npos) << res.out;
  const auto start = at + std::string("the per-process reports are kept in ").size();
  const fs::path kept = res.out.substr(start, res.out.find(' ', start) - start);
  EXPECT_TRUE(fs::exists(kept / "report-100.json")) << res.out;
  EXPECT_EQ(read_report(kept / "report-100.json").sites.size(), 1u);
  fs::remove_all(kept);
}

TEST_F(ProbeCli, MergeAndReportSubcommands) {
  const auto r0 = write_report("r0.json", 0, 6), r1 = write_report("r1.json", 1, 4);
  const fs::path out = dir_ / "m.json";
  Result res = run(synclint() + " probe merge -o " + out.string() + " " + r0.string() + " " + r1.string());
  ASSERT_EQ(res.status, 0) << res.out;
  EXPECT_EQ(read_report(out).runs.size(), 2u);
  res = run(synclint() + " probe report " + out.string());
  EXPECT_EQ(res.status, 0) << res.out;
  EXPECT_NE(res.out.find("10.00 ms"), std::string::npos) << res.out;

  std::ofstream(dir_ / "future.json") << R"({"schema":"synclint-probe-report","version":99,"sites":[]})";
  res = run(synclint() + " probe report " + (dir_ / "future.json").string());
  EXPECT_EQ(res.status, 2);
  EXPECT_NE(res.out.find("report version 99 is newer"), std::string::npos) << res.out;
}

TEST_F(ProbeCli, AnalyzesARecordedStream) {
  const fs::path stream = fs::path(SYNCLINT_SOURCE_DIR) / "runtime_probe/testdata/cnn-norms-b16.stream.json";
  if (!fs::exists(stream)) GTEST_SKIP() << "no recording";
  const fs::path out = dir_ / "a.json";
  const Result res = run(synclint() + " probe analyze " + stream.string() + " -o " + out.string());
  ASSERT_EQ(res.status, 0) << res.out;
  EXPECT_NE(res.out.find("cnn_bench.py:81 (log_norms) cudaStreamSynchronize"), std::string::npos) << res.out;
  EXPECT_NE(res.out.find("replay error"), std::string::npos) << res.out;
  const ProbeReport r = read_report(out);
  ASSERT_FALSE(r.sites.empty());
  EXPECT_EQ(r.sites[0].site.line, 81u);
}

}  // namespace
}  // namespace synclint::probe
