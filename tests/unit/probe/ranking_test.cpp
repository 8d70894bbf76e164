// The ranking join: probe costs onto static findings (core/ranking.h) and the core report reader.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "core/cost_report.h"
#include "core/ranking.h"

namespace synclint {
namespace {

Finding finding(const std::string& path, std::uint32_t line, std::string rule = "SYNC001", std::uint32_t end_line = 0,
                std::uint32_t end_column = 20) {
  Finding f;
  f.rule_id = std::move(rule);
  f.range.path = path;
  f.range.begin = {line, 5};
  f.range.end = {end_line ? end_line : line, end_column};
  return f;
}

CostSite site(const std::string& path, std::uint32_t line, double saving, std::string api = "cudaStreamSynchronize") {
  CostSite s;
  s.site.path = path;
  s.site.line = line;
  s.site.function = "step";
  s.api = std::move(api);
  s.calls = 10;
  s.host_blocked_ms = saving * 2;
  s.gpu_idle_ms = saving;
  s.predicted_saving_ms = saving;
  s.share_of_run = saving / 1000;
  return s;
}

CostReport costs(std::vector<CostSite> sites, std::string cwd = "/remote/job") {
  CostReport c;
  c.run.cwd = std::move(cwd);
  c.runs = {c.run};
  c.sites = std::move(sites);
  return c;
}

TEST(RankingJoin, OrdersByPredictedSavingThenFindingOrder) {
  Report r;
  r.findings = {finding("/p/train.py", 5), finding("/p/train.py", 42), finding("/p/train.py", 50),
                finding("/p/a.py", 9)};
  join_costs(r, costs({site("/p/train.py", 42, 3.0), site("/p/train.py", 50, 8.0)}), {});
  EXPECT_TRUE(r.has_costs);
  ASSERT_EQ(r.findings.size(), 4u);
  EXPECT_EQ(r.findings[0].range.begin.line, 50u);
  ASSERT_TRUE(r.findings[0].cost);
  EXPECT_DOUBLE_EQ(r.findings[0].cost->predicted_saving_ms, 8.0);
  EXPECT_EQ(r.findings[0].cost->calls, 10u);
  EXPECT_EQ(r.findings[1].range.begin.line, 42u);
  // Never ran (no cost): after the costed ones, in finding_less order.
  EXPECT_FALSE(r.findings[2].cost);
  EXPECT_EQ(r.findings[2].range.path, "/p/a.py");
  EXPECT_FALSE(r.findings[3].cost);
  EXPECT_EQ(r.findings[3].range.begin.line, 5u);
  EXPECT_TRUE(r.missed_by_static.empty());
}

TEST(RankingJoin, PathMappingReplacesTheLongestPrefixComponentWise) {
  const std::vector<std::pair<std::string, std::string>> maps = {{"/remote", "/elsewhere"}, {"/remote/job", "/home/me/proj"}};
  EXPECT_EQ(map_runtime_path("/remote/job/train.py", maps), "/home/me/proj/train.py");
  EXPECT_EQ(map_runtime_path("/remote/jobs/train.py", maps), "/elsewhere/jobs/train.py");
  EXPECT_EQ(map_runtime_path("/remote/job/../x.py", maps), "/elsewhere/x.py");
  EXPECT_EQ(map_runtime_path("/other/train.py", maps), "/other/train.py");
  EXPECT_EQ(map_runtime_path("/remote/job/a.py", {{"/remote/job/", "/p/"}}), "/p/a.py");

  Report r;
  r.findings = {finding("/home/me/proj/train.py", 42)};
  join_costs(r, costs({site("/remote/job/train.py", 42, 2.0)}, "/somewhere"), maps);
  ASSERT_TRUE(r.findings[0].cost);
  EXPECT_TRUE(r.missed_by_static.empty());
}

TEST(RankingJoin, RelativeFindingsResolveAgainstTheRunDirectoryAndTheCurrentOne) {
  Report r;
  r.findings = {finding("train.py", 42), finding("./models/net.py", 7)};
  const std::string here = std::filesystem::current_path().generic_string();
  join_costs(r, costs({site("/remote/job/train.py", 42, 2.0), site(here + "/models/net.py", 7, 1.0)}), {});
  ASSERT_TRUE(r.findings[0].cost);
  EXPECT_EQ(r.findings[0].range.path, "train.py");
  ASSERT_TRUE(r.findings[1].cost);
  EXPECT_TRUE(r.missed_by_static.empty());

  // The run directory is mapped like every other runtime path.
  Report mapped;
  mapped.findings = {finding("train.py", 42)};
  join_costs(mapped, costs({site("/home/me/proj/train.py", 42, 2.0)}, "/remote/job"), {{"/remote/job", "/home/me/proj"}});
  EXPECT_TRUE(mapped.findings[0].cost);
}

TEST(RankingJoin, UniqueLongPathSuffixMatchesWithoutAMapping) {
  Report r;
  r.findings = {finding("/home/me/proj/models/net.py", 7)};
  join_costs(r, costs({site("/cluster/u1/proj/models/net.py", 7, 1.0)}, ""), {});
  EXPECT_TRUE(r.findings[0].cost);

  // A bare file name shared by two folders is ambiguous: no match, the site is reported as missed.
  Report amb;
  amb.findings = {finding("a/train.py", 3), finding("b/train.py", 3)};
  join_costs(amb, costs({site("/x/c/train.py", 3, 1.0)}, ""), {});
  EXPECT_FALSE(amb.findings[0].cost);
  EXPECT_FALSE(amb.findings[1].cost);
  ASSERT_EQ(amb.missed_by_static.size(), 1u);
  EXPECT_EQ(amb.missed_by_static[0].range.path, "/x/c/train.py");

  // Only the file name in common is not enough for an absolute finding.
  Report weak;
  weak.findings = {finding("/home/me/train.py", 3)};
  join_costs(weak, costs({site("/x/c/train.py", 3, 1.0)}, ""), {});
  EXPECT_FALSE(weak.findings[0].cost);
}

TEST(RankingJoin, SymbolicLinksAreResolvedForFilesThatExistHere) {
  namespace fs = std::filesystem;
  const fs::path root = fs::temp_directory_path() / ("synclint-join-" + std::to_string(::getpid()));
  fs::remove_all(root);
  fs::create_directories(root / "real");
  std::ofstream(root / "real" / "train.py") << "x = 1\n";
  fs::create_directory_symlink(root / "real", root / "link");
  Report r;
  r.findings = {finding((root / "link" / "train.py").string(), 1)};
  join_costs(r, costs({site((root / "real" / "train.py").string(), 1, 1.0)}, ""), {});
  EXPECT_TRUE(r.findings[0].cost);
  fs::remove_all(root);
}

TEST(RankingJoin, MultiLineStatementsCoverEveryLine) {
  Report r;
  r.findings = {finding("/p/train.py", 10, "SYNC001", 12, 5), finding("/p/train.py", 20, "SYNC005", 22, 1)};
  join_costs(r, costs({site("/p/train.py", 11, 1.0), site("/p/train.py", 12, 2.0), site("/p/train.py", 21, 4.0),
                       site("/p/train.py", 22, 8.0)}),
             {});
  // The second finding ends at the start of line 22: it covers 20-21 only.
  ASSERT_TRUE(r.findings[0].cost);
  EXPECT_EQ(r.findings[0].range.begin.line, 20u);
  EXPECT_DOUBLE_EQ(r.findings[0].cost->predicted_saving_ms, 4.0);
  ASSERT_TRUE(r.findings[1].cost);
  EXPECT_DOUBLE_EQ(r.findings[1].cost->predicted_saving_ms, 3.0);  // lines 11 and 12 summed
  EXPECT_EQ(r.findings[1].cost->calls, 20u);
  ASSERT_EQ(r.missed_by_static.size(), 1u);
  EXPECT_EQ(r.missed_by_static[0].range.begin.line, 22u);
}

TEST(RankingJoin, MissedByStaticListsUncoveredSitesLargestFirst) {
  Report r;
  r.findings = {finding("/p/train.py", 42)};
  join_costs(r, costs({site("/p/train.py", 42, 1.0), site("/p/data.py", 7, 2.0, "cudaMemcpy"),
                       site("/p/train.py", 60, 5.0, "cudaDeviceSynchronize")}),
             {});
  ASSERT_EQ(r.missed_by_static.size(), 2u);
  EXPECT_EQ(r.missed_by_static[0].range.path, "/p/train.py");
  EXPECT_EQ(r.missed_by_static[0].range.begin.line, 60u);
  EXPECT_EQ(r.missed_by_static[0].api, "cudaDeviceSynchronize");
  EXPECT_DOUBLE_EQ(r.missed_by_static[0].cost.predicted_saving_ms, 5.0);
  EXPECT_EQ(r.missed_by_static[1].api, "cudaMemcpy");
  EXPECT_EQ(r.missed_by_static[1].function, "step");
}

TEST(RankingJoin, EmptyReportStillMarksCosts) {
  Report r;
  r.findings = {finding("/p/train.py", 42)};
  join_costs(r, costs({}), {});
  EXPECT_TRUE(r.has_costs);
  EXPECT_FALSE(r.findings[0].cost);
}

TEST(CostReportReader, ReadsTheProbeReportAndRejectsNewerVersions) {
  const std::string text = R"({"schema":"synclint-probe-report","version":1,
    "run":{"cwd":"/w","wall_ms":1000,"status":"ok","rank":0},
    "runs":[{"cwd":"/w","rank":0},{"cwd":"/w","rank":1}],
    "sites":[{"path":"/w/train.py","line":42,"function":"step","language":"python","api":"cudaStreamSynchronize",
              "rule_guess":"SYNC001|SYNC003","calls":300,"host_blocked_ms":12.5,"gpu_idle_ms":9,
              "predicted_saving_ms":7,"share_of_run":0.007}]})";
  const CostReport c = parse_cost_report(text);
  EXPECT_EQ(c.run.cwd, "/w");
  EXPECT_EQ(c.runs.size(), 2u);
  ASSERT_EQ(c.sites.size(), 1u);
  EXPECT_EQ(c.sites[0].site.line, 42u);
  EXPECT_EQ(c.sites[0].calls, 300u);
  EXPECT_DOUBLE_EQ(c.sites[0].predicted_saving_ms, 7);
  EXPECT_EQ(c.sites[0].rule_guess, "SYNC001|SYNC003");

  std::string newer = text;
  newer.replace(newer.find("\"version\":1"), 11, "\"version\":7");
  try {
    parse_cost_report(newer, "r.json");
    FAIL() << "accepted a newer version";
  } catch (const CostReportError& e) {
    EXPECT_NE(std::string(e.what()).find("r.json: report version 7 is newer"), std::string::npos) << e.what();
  }
  EXPECT_THROW(parse_cost_report("{}"), CostReportError);
  EXPECT_THROW(parse_cost_report("not json"), CostReportError);
  EXPECT_THROW(read_cost_report("/nonexistent/report.json"), CostReportError);
}

}  // namespace
}  // namespace synclint
