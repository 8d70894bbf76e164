// The probe report schema shared by the probe (runtime_probe/analysis/report_io.cpp, which writes it and
// reads it back for `probe merge/report`) and the core (lib/core/cost_report.cpp, `check --costs`): a
// report the probe writes reaches the core with every field, and readers ignore fields they do not know.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "analysis/report_io.h"
#include "core/cost_report.h"
#include "core/report_schema.h"

namespace synclint {
namespace {

using nlohmann::json;

// Gives every field of an object a value of its type that differs from its default and from every other
// field's, so a field read into the wrong member or not read at all shows.
struct Distinct {
  int next = 1;
  void operator()(const char* name, std::string& v) { v = std::string(name) + "-" + std::to_string(next++); }
  void operator()(const char* name, std::vector<std::string>& v) { v = {name, std::to_string(next++)}; }
  void operator()(const char*, double& v) { v = next++ + 0.25; }
  template <typename Int>
  void operator()(const char*, Int& v) {
    v = static_cast<Int>(next++ + 100);
  }
};

probe::ProbeReport every_field_set() {
  Distinct d;
  probe::ProbeReport r;
  report_schema::run_fields(r.run, d);
  r.runs = {r.run, {}};
  report_schema::run_fields(r.runs[1], d);
  report_schema::totals_fields(r, d);
  r.sites.resize(2);
  for (auto& s : r.sites) report_schema::site_fields(s, d);
  return r;
}

// Every field's name and value, as the schema lists them.
std::vector<std::string> described(const report_schema::Report& r) {
  std::vector<std::string> out;
  const auto add = [&](const std::string& where) {
    return [&out, where](const char* name, const auto& value) { out.push_back(where + name + "=" + json(value).dump()); };
  };
  out.push_back("version=" + std::to_string(r.version));
  report_schema::run_fields(r.run, add("run."));
  for (std::size_t i = 0; i < r.runs.size(); ++i) report_schema::run_fields(r.runs[i], add("runs[" + std::to_string(i) + "]."));
  report_schema::totals_fields(r, add("totals."));
  for (std::size_t i = 0; i < r.sites.size(); ++i) report_schema::site_fields(r.sites[i], add("sites[" + std::to_string(i) + "]."));
  return out;
}

TEST(ProbeReportSchema, WhatTheProbeWritesTheCoreReadsFieldForField) {
  const probe::ProbeReport written = every_field_set();
  const std::string text = probe::report_to_json(written);
  const CostReport read = parse_cost_report(text, "r.json");
  EXPECT_EQ(described(read), described(written));
  // Fields the core's reader used to drop, named so that a failure says what went missing.
  ASSERT_EQ(read.sites.size(), 2u);
  EXPECT_EQ(read.sites[1].python_call_ms, written.sites[1].python_call_ms);
  EXPECT_EQ(read.sites[0].traced_calls, written.sites[0].traced_calls);
  EXPECT_EQ(read.sites[0].wait_saving_ms, written.sites[0].wait_saving_ms);
  EXPECT_EQ(read.run.gpu_records, written.run.gpu_records);
  EXPECT_EQ(read.runs[1].callback_overhead_ns, written.runs[1].callback_overhead_ns);
  EXPECT_EQ(read.replay_error, written.replay_error);
  EXPECT_EQ(read.modelled_without_duration, written.modelled_without_duration);
  // And the probe's own reader (`probe merge`, `probe report`) agrees.
  EXPECT_EQ(described(probe::parse_report(text, "r.json")), described(written));
  // The cost a finding carries is the site's.
  const SiteCost cost = site_cost(read.sites[0]);
  EXPECT_EQ(cost.calls, written.sites[0].calls);
  EXPECT_EQ(cost.host_blocked_ms, written.sites[0].host_blocked_ms);
  EXPECT_EQ(cost.gpu_idle_ms, written.sites[0].gpu_idle_ms);
  EXPECT_EQ(cost.predicted_saving_ms, written.sites[0].predicted_saving_ms);
  EXPECT_EQ(cost.share_of_run, written.sites[0].share_of_run);
}

TEST(ProbeReportSchema, TheWrittenJsonHoldsEverySchemaFieldOnce) {
  const probe::ProbeReport written = every_field_set();
  const json doc = json::parse(probe::report_to_json(written));
  std::vector<std::string> run_keys, site_keys, totals_keys;
  const auto names = [](std::vector<std::string>& into) { return [&into](const char* name, const auto&) { into.push_back(name); }; };
  report_schema::run_fields(written.run, names(run_keys));
  report_schema::site_fields(written.sites[0], names(site_keys));
  report_schema::totals_fields(written, names(totals_keys));
  const auto keys = [](const json& object) {
    std::vector<std::string> out;
    for (const auto& [key, value] : object.items()) out.push_back(key);
    return out;
  };
  EXPECT_THAT(keys(doc), ::testing::UnorderedElementsAre("schema", "version", "run", "runs", "totals", "sites"));
  EXPECT_THAT(keys(doc["run"]), ::testing::UnorderedElementsAreArray(run_keys));
  EXPECT_THAT(keys(doc["runs"][1]), ::testing::UnorderedElementsAreArray(run_keys));
  EXPECT_THAT(keys(doc["totals"]), ::testing::UnorderedElementsAreArray(totals_keys));
  EXPECT_THAT(keys(doc["sites"][1]), ::testing::UnorderedElementsAreArray(site_keys));
  EXPECT_EQ(doc["schema"], report_schema::kName);
  EXPECT_EQ(doc["version"], report_schema::kVersion);
}

TEST(ProbeReportSchema, UnknownFieldsAreIgnoredByBothReaders) {
  const probe::ProbeReport written = every_field_set();
  json doc = json::parse(probe::report_to_json(written));
  doc["from_a_newer_probe"] = {{"nested", true}};
  doc["run"]["numa_node"] = 1;
  doc["runs"][0]["numa_node"] = 1;
  doc["totals"]["kernels"] = 12345;
  doc["sites"][1]["stack"] = json::array({"a", "b"});
  const std::string text = doc.dump();
  EXPECT_EQ(described(parse_cost_report(text, "r.json")), described(written));
  EXPECT_EQ(described(probe::parse_report(text, "r.json")), described(written));
}

TEST(ProbeReportSchema, BothReadersRejectTheSameMalformedFieldWithTheirOwnError) {
  json doc = json::parse(probe::report_to_json(every_field_set()));
  doc["sites"][0]["python_call_ms"] = "slow";
  const std::string text = doc.dump();
  try {
    parse_cost_report(text, "r.json");
    ADD_FAILURE() << "the core accepted a string for python_call_ms";
  } catch (const CostReportError& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("r.json: sites[0]: field \"python_call_ms\" must be a number"));
  }
  EXPECT_THROW(probe::parse_report(text, "r.json"), probe::ProbeError);
}

}  // namespace
}  // namespace synclint
