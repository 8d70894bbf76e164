#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "emit_test_util.h"

namespace synclint::emit {
namespace {

using nlohmann::json;
using testing::render;

TEST(Json, SampleReportFields) {
  const json j = json::parse(render(Format::Json, testing::sample_report()));
  EXPECT_EQ(j["version"], 1);
  EXPECT_EQ(j["tool"]["name"], "synclint");
  EXPECT_EQ(j["tool"]["version"], "1.2.3");
  EXPECT_EQ(j["files_checked"], 4);
  EXPECT_EQ(j["has_costs"], true);
  EXPECT_EQ(j["summary"]["findings"], 3);
  EXPECT_EQ(j["summary"]["by_severity"]["warning"], 2);
  EXPECT_EQ(j["summary"]["by_severity"]["note"], 1);
  EXPECT_EQ(j["summary"]["errors"], 1);
  ASSERT_EQ(j["findings"].size(), 3u);

  const json& norms = j["findings"][0];
  EXPECT_EQ(norms["rule_id"], "SYNC001");
  EXPECT_EQ(norms["rule_name"], "tensor-item");
  EXPECT_EQ(norms["severity"], "warning");
  EXPECT_EQ(norms["path"], "src/model.py");
  EXPECT_EQ(norms["line"], 3);
  EXPECT_EQ(norms["column"], 18);
  EXPECT_EQ(norms["end_line"], 3);
  EXPECT_EQ(norms["end_column"], 38);
  EXPECT_EQ(norms["reads_per_step"], 22);
  EXPECT_EQ(norms["confidence"], "high");
  EXPECT_EQ(norms["periodic"], false);
  EXPECT_EQ(norms["function"], "Model.step");
  ASSERT_EQ(norms["related"].size(), 2u);
  EXPECT_EQ(norms["related"][0]["line"], 6);
  EXPECT_EQ(norms["related"][0]["message"], "called from src/train.py:6, inside the loop at src/train.py:5");
  EXPECT_EQ(norms["cost"]["calls"], 27148);
  EXPECT_DOUBLE_EQ(norms["cost"]["predicted_saving_ms"].get<double>(), 402.5);

  const json& print = j["findings"][2];
  EXPECT_TRUE(print["cost"].is_null());
  EXPECT_TRUE(print["fix"].is_null());
  EXPECT_EQ(print["periodic"], true);
  EXPECT_EQ(print["confidence"], "medium");
  EXPECT_EQ(j["findings"][1]["edits"][0]["replacement"], "loss.detach()");

  ASSERT_EQ(j["errors"].size(), 1u);
  EXPECT_EQ(j["errors"][0]["line"], 3);
  EXPECT_EQ(j["errors"][0]["fatal"], true);
  ASSERT_EQ(j["missed_by_static"].size(), 1u);
  EXPECT_EQ(j["missed_by_static"][0]["api"], "cudaStreamSynchronize");
}

TEST(Json, KeysKeepTheirDocumentedOrder) {
  const std::string out = render(Format::Json, testing::sample_report());
  EXPECT_LT(out.find("\"version\""), out.find("\"tool\""));
  EXPECT_LT(out.find("\"rule_id\""), out.find("\"rule_name\""));
  EXPECT_LT(out.find("\"message\""), out.find("\"confidence\""));
}

TEST(Json, EmptyReport) {
  const json j = json::parse(render(Format::Json, Report{}));
  EXPECT_TRUE(j["findings"].empty());
  EXPECT_TRUE(j["errors"].empty());
  EXPECT_TRUE(j["missed_by_static"].empty());
  EXPECT_EQ(j["summary"]["findings"], 0);
}

TEST(Json, ErrorWithoutPositionHasNullLine) {
  Report report;
  report.errors = {FileError{"x.py", "unreadable", false, std::nullopt}};
  const json j = json::parse(render(Format::Json, report));
  EXPECT_TRUE(j["errors"][0]["line"].is_null());
  EXPECT_EQ(j["errors"][0]["fatal"], false);
}

TEST(Json, InvalidUtf8IsReplacedNotFatal) {
  Report report;
  report.findings = {testing::make_finding("caf\xe9.py", 1, 1, 2, "bad \xff byte")};
  std::string out;
  ASSERT_NO_THROW(out = render(Format::Json, report));
  const json j = json::parse(out);
  EXPECT_EQ(j["findings"][0]["path"], "caf\xEF\xBF\xBD.py");
  EXPECT_EQ(j["findings"][0]["message"], "bad \xEF\xBF\xBD byte");
}

TEST(Json, EscapesQuotesAndControlCharacters) {
  Report report;
  report.findings = {testing::make_finding("a.py", 1, 1, 2, "say \"hi\"\n\ttab")};
  const json j = json::parse(render(Format::Json, report));
  EXPECT_EQ(j["findings"][0]["message"], "say \"hi\"\n\ttab");
}

}  // namespace
}  // namespace synclint::emit
