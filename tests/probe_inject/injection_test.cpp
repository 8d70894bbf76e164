// The injection's failure path, end to end: a host program loads libsynclint_probe.so as the CUDA driver
// would and calls InitializeInjection. There is no GPU driver here, so CUPTI cannot subscribe: the
// program must go on and a report must say why there is no data.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "analysis/report_io.h"
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
    for (const char* v : {"RANK", "LOCAL_RANK", "SLURM_PROCID", "SYNCLINT_CUPTI_PATH"}) unsetenv(v);
  }
  void TearDown() override {
    unsetenv("SYNCLINT_PROBE_DIR");
    for (const char* v : {"RANK", "SYNCLINT_CUPTI_PATH"}) unsetenv(v);
    fs::remove_all(dir_);
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

}  // namespace
}  // namespace synclint::probe::inject
