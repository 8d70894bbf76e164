#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "emit_test_util.h"

namespace synclint::emit {
namespace {

using nlohmann::json;
using testing::make_finding;
using testing::options_with_source;
using testing::render;

json sarif(const Report& report, const emit::Options& options = testing::sample_options()) {
  return json::parse(render(Format::Sarif, report, options));
}

TEST(Sarif, RunShape) {
  const json j = sarif(testing::sample_report());
  EXPECT_EQ(j["version"], "2.1.0");
  EXPECT_TRUE(j.contains("$schema"));
  ASSERT_EQ(j["runs"].size(), 1u);
  const json& run = j["runs"][0];
  EXPECT_EQ(run["columnKind"], "unicodeCodePoints");
  EXPECT_EQ(run["originalUriBaseIds"]["SRCROOT"]["uri"], "file:///project/");
  const json& driver = run["tool"]["driver"];
  EXPECT_EQ(driver["name"], "synclint");
  EXPECT_EQ(driver["version"], "1.2.3");
  EXPECT_EQ(driver["semanticVersion"], "1.2.3");
  EXPECT_FALSE(driver.contains("informationUri")) << "no URI given: none invented";
  EXPECT_EQ(run["properties"]["filesChecked"], 4);
}

TEST(Sarif, EveryCatalogRuleIsDescribed) {
  const json j = sarif(Report{});
  const json& rules = j["runs"][0]["tool"]["driver"]["rules"];
  const Catalog catalog = testing::sample_catalog();
  ASSERT_EQ(rules.size(), catalog.rules().size());
  for (std::size_t i = 0; i < rules.size(); ++i) {
    const Rule& r = catalog.rules()[i];
    EXPECT_EQ(rules[i]["id"], r.id);
    EXPECT_EQ(rules[i]["name"], r.name);
    EXPECT_EQ(rules[i]["help"]["markdown"], r.markdown());
    EXPECT_EQ(rules[i]["help"]["text"].get<std::string>().find("```"), std::string::npos);
    EXPECT_EQ(rules[i]["defaultConfiguration"]["level"], "warning");
    EXPECT_TRUE(rules[i]["shortDescription"]["text"].get<std::string>().ends_with("."));
    EXPECT_FALSE(rules[i].contains("helpUri"));
  }
}

TEST(Sarif, HelpUriIsAbsoluteWhenAnInformationUriIsGiven) {
  emit::Options o = testing::sample_options();
  o.information_uri = "https://example.invalid/synclint/";
  const json j = sarif(Report{}, o);
  const json& driver = j["runs"][0]["tool"]["driver"];
  EXPECT_EQ(driver["informationUri"], "https://example.invalid/synclint/");
  EXPECT_EQ(driver["rules"][0]["helpUri"], "https://example.invalid/synclint/docs/rules/SYNC001.md");
}

TEST(Sarif, ResultFields) {
  const json j = sarif(testing::sample_report());
  const json& results = j["runs"][0]["results"];
  ASSERT_EQ(results.size(), 3u);
  const json& norms = results[0];
  EXPECT_EQ(norms["ruleId"], "SYNC001");
  EXPECT_EQ(norms["ruleIndex"], 0);
  EXPECT_EQ(norms["level"], "warning");
  EXPECT_TRUE(norms["message"]["text"].get<std::string>().ends_with("."));
  const json& loc = norms["locations"][0]["physicalLocation"];
  EXPECT_EQ(loc["artifactLocation"]["uri"], "src/model.py");
  EXPECT_EQ(loc["artifactLocation"]["uriBaseId"], "SRCROOT");
  EXPECT_EQ(loc["region"], (json{{"startLine", 3}, {"startColumn", 18}, {"endLine", 3}, {"endColumn", 38}}));
  ASSERT_EQ(norms["relatedLocations"].size(), 2u);
  EXPECT_EQ(norms["relatedLocations"][0]["id"], 1);
  EXPECT_EQ(norms["relatedLocations"][1]["id"], 2);
  EXPECT_EQ(norms["relatedLocations"][0]["physicalLocation"]["region"]["startLine"], 6);
  EXPECT_EQ(norms["properties"]["readsPerStep"], 22);
  EXPECT_EQ(norms["properties"]["cost"]["calls"], 27148);
  EXPECT_FALSE(norms.contains("fixes")) << "no edits, no fixes";
  EXPECT_EQ(results[2]["level"], "note");
  EXPECT_EQ(results[2]["ruleIndex"], 1);
  EXPECT_EQ(results[2]["properties"]["periodic"], true);

  const json& fixes = results[1]["fixes"];
  ASSERT_EQ(fixes.size(), 1u);
  const json& replacement = fixes[0]["artifactChanges"][0]["replacements"][0];
  EXPECT_EQ(replacement["insertedContent"]["text"], "loss.detach()");
  EXPECT_EQ(replacement["deletedRegion"]["startColumn"], 18);
}

TEST(Sarif, EditsWithoutALineAreNotOffered) {
  Report report;
  Finding f = make_finding("a.py", 1, 1, 2);
  f.edits = {{testing::range("a.py", 0, 0, 0, 0), "x"}};
  report.findings = {f};
  EXPECT_FALSE(sarif(report)["runs"][0]["results"][0].contains("fixes"));
  report.findings[0].edits.push_back({testing::range("b.py", 2, 1, 2, 3), "y"});
  const json fixes = sarif(report)["runs"][0]["results"][0]["fixes"];
  ASSERT_EQ(fixes[0]["artifactChanges"].size(), 1u);
  EXPECT_EQ(fixes[0]["artifactChanges"][0]["artifactLocation"]["uri"], "b.py");
}

TEST(Sarif, FindingWithoutALineCoversTheWholeFile) {
  Report report;
  report.findings = {make_finding("a.py", 0, 0, 0), make_finding("unread.py", 0, 0, 0)};
  const json results = sarif(report, options_with_source("a.py", "x\ny\nz\n"))["runs"][0]["results"];
  EXPECT_EQ(results[0]["locations"][0]["physicalLocation"]["region"], (json{{"startLine", 1}, {"endLine", 3}}));
  EXPECT_EQ(results[1]["locations"][0]["physicalLocation"]["region"], (json{{"startLine", 1}}));
}

TEST(Sarif, UnknownRuleHasNoIndex) {
  Report report;
  Finding f = make_finding("a.py", 1, 1, 2);
  f.rule_id = "SYNC999";
  report.findings = {f};
  EXPECT_FALSE(sarif(report)["runs"][0]["results"][0].contains("ruleIndex"));
}

TEST(Sarif, PathsOutsideTheWorkingDirectoryAreAbsoluteFileUris) {
  Report report;
  report.findings = {make_finding("/project/sub dir/a.py", 1, 1, 2), make_finding("../other/b.py", 1, 1, 2),
                     make_finding("/opt/lib/ü.py", 1, 1, 2), make_finding("./c.py", 1, 1, 2)};
  const json results = sarif(report)["runs"][0]["results"];
  const auto location = [&](int i) { return results[i]["locations"][0]["physicalLocation"]["artifactLocation"]; };
  EXPECT_EQ(location(0), (json{{"uri", "sub%20dir/a.py"}, {"uriBaseId", "SRCROOT"}}));
  EXPECT_EQ(location(1), (json{{"uri", "file:///other/b.py"}}));
  EXPECT_EQ(location(2), (json{{"uri", "file:///opt/lib/%C3%BC.py"}}));
  EXPECT_EQ(location(3), (json{{"uri", "c.py"}, {"uriBaseId", "SRCROOT"}}));
}

TEST(Sarif, FingerprintFollowsTheLineTextNotItsNumber) {
  const auto fingerprint = [](const std::string& source, std::uint32_t line) {
    Report report;
    report.findings = {make_finding("a.py", line, 5, 13)};
    return sarif(report, options_with_source("a.py", source))["runs"][0]["results"][0]["partialFingerprints"]
        .begin()
        .value()
        .get<std::string>();
  };
  const std::string before = fingerprint("for x in xs:\n    t += x.item()\n", 2);
  const std::string moved = fingerprint("# new comment\n\nfor x in xs:\n        t  +=  x.item()\n", 4);
  const std::string changed = fingerprint("for x in xs:\n    t += y.item()\n", 2);
  EXPECT_EQ(before, moved) << "white space and line numbers do not matter";
  EXPECT_NE(before, changed);
  EXPECT_TRUE(before.ends_with(":1")) << before;
}

TEST(Sarif, RepeatedLinesGetDistinctFingerprints) {
  Report report;
  report.findings = {make_finding("a.py", 1, 1, 2), make_finding("a.py", 2, 1, 2)};
  const json results = sarif(report, options_with_source("a.py", "x.item()\nx.item()\n"))["runs"][0]["results"];
  EXPECT_NE(results[0]["partialFingerprints"], results[1]["partialFingerprints"]);
}

TEST(Sarif, ErrorsBecomeNotifications) {
  Report report;
  report.errors = {FileError{"bad.py", "invalid syntax", true, Position{2, 3}},
                   FileError{"big.py", "too large", false, std::nullopt}};
  const json invocation = sarif(report)["runs"][0]["invocations"][0];
  EXPECT_EQ(invocation["executionSuccessful"], false);
  const json& n = invocation["toolExecutionNotifications"];
  ASSERT_EQ(n.size(), 2u);
  EXPECT_EQ(n[0]["level"], "error");
  EXPECT_EQ(n[0]["message"]["text"], "invalid syntax.");
  EXPECT_EQ(n[0]["locations"][0]["physicalLocation"]["region"], (json{{"startLine", 2}, {"startColumn", 3}}));
  EXPECT_EQ(n[1]["level"], "warning");
  EXPECT_FALSE(n[1]["locations"][0]["physicalLocation"].contains("region"));

  report.errors.erase(report.errors.begin());
  EXPECT_EQ(sarif(report)["runs"][0]["invocations"][0]["executionSuccessful"], true) << "only fatal errors fail the run";
}

TEST(Sarif, EmptyReport) {
  const json run = sarif(Report{})["runs"][0];
  EXPECT_TRUE(run["results"].empty());
  EXPECT_EQ(run["invocations"][0]["executionSuccessful"], true);
  EXPECT_FALSE(run["invocations"][0].contains("toolExecutionNotifications"));
  EXPECT_FALSE(run["properties"].contains("missedByStatic"));
}

TEST(Sarif, NonSemanticVersionIsNotClaimedAsOne) {
  emit::Options o = testing::sample_options();
  o.tool_version = "1.2";
  const json driver = sarif(Report{}, o)["runs"][0]["tool"]["driver"];
  EXPECT_EQ(driver["version"], "1.2");
  EXPECT_FALSE(driver.contains("semanticVersion"));
  o.tool_version = "2.0.1-rc.1+abc";
  EXPECT_EQ(sarif(Report{}, o)["runs"][0]["tool"]["driver"]["semanticVersion"], "2.0.1-rc.1+abc");
}

}  // namespace
}  // namespace synclint::emit
