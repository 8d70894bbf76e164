// JSON output: the schema documented in docs/cli.md ("JSON output"). Keys keep the order written here;
// any change to a key or its meaning bumps "version".
#include <nlohmann/json.hpp>

#include "emit/detail.h"

namespace synclint::emit::detail {

namespace {

using Json = nlohmann::ordered_json;

constexpr int kSchemaVersion = 1;

void put_range(Json& j, const SourceRange& r) {
  j["path"] = r.path;
  j["line"] = r.begin.line;
  j["column"] = r.begin.column;
  j["end_line"] = r.end.line;
  j["end_column"] = r.end.column;
}

// A range and one more text field: a related location's message, an edit's replacement.
Json located(const SourceRange& r, const char* key, const std::string& text) {
  Json j;
  put_range(j, r);
  j[key] = text;
  return j;
}

Json cost_json(const SiteCost& c) {
  Json j;
  j["calls"] = c.calls;
  j["host_blocked_ms"] = c.host_blocked_ms;
  j["gpu_idle_ms"] = c.gpu_idle_ms;
  j["predicted_saving_ms"] = c.predicted_saving_ms;
  j["share_of_run"] = c.share_of_run;
  return j;
}

Json finding_json(const Finding& f) {
  Json j;
  j["rule_id"] = f.rule_id;
  j["rule_name"] = f.rule_name;
  j["severity"] = to_string(f.severity);
  put_range(j, f.range);
  j["message"] = f.message;
  j["confidence"] = to_string(f.confidence);
  j["periodic"] = f.periodic;
  j["reads_per_step"] = f.reads_per_step;
  j["function"] = f.function;
  j["fix"] = f.fix.empty() ? Json(nullptr) : Json(f.fix);
  Json related = Json::array();
  for (const RelatedLocation& r : f.related) related.push_back(located(r.range, "message", r.message));
  j["related"] = std::move(related);
  Json edits = Json::array();
  for (const TextEdit& e : f.edits) edits.push_back(located(e.range, "replacement", e.replacement));
  j["edits"] = std::move(edits);
  j["cost"] = f.cost ? cost_json(*f.cost) : Json(nullptr);
  return j;
}

}  // namespace

void write_json(std::ostream& out, const Report& report, const Catalog&, const Options& options) {
  Json root;
  root["version"] = kSchemaVersion;
  root["tool"] = Json{{"name", "synclint"}, {"version", tool_version(options)}};
  root["files_checked"] = report.files_checked;
  root["has_costs"] = report.has_costs;
  const Counts counts = count_severities(report);
  root["summary"] = Json{{"findings", counts.total()},
                         {"by_severity", Json{{"error", counts.errors}, {"warning", counts.warnings}, {"note", counts.notes}}},
                         {"errors", report.errors.size()}};
  Json findings = Json::array();
  for (const Finding& f : report.findings) findings.push_back(finding_json(f));
  root["findings"] = std::move(findings);
  Json errors = Json::array();
  for (const FileError& e : report.errors) {
    Json item;
    item["path"] = e.path;
    item["line"] = e.position ? Json(e.position->line) : Json(nullptr);
    item["column"] = e.position ? Json(e.position->column) : Json(nullptr);
    item["message"] = e.message;
    item["fatal"] = e.fatal;
    errors.push_back(std::move(item));
  }
  root["errors"] = std::move(errors);
  Json missed = Json::array();
  for (const RuntimeSite& s : report.missed_by_static) {
    Json item;
    item["path"] = s.range.path;
    item["line"] = s.range.begin.line;
    item["column"] = s.range.begin.column;
    item["function"] = s.function;
    item["api"] = s.api;
    item["cost"] = cost_json(s.cost);
    missed.push_back(std::move(item));
  }
  root["missed_by_static"] = std::move(missed);
  out << root.dump(2, ' ', false, Json::error_handler_t::replace) << '\n';
}

}  // namespace synclint::emit::detail
