#include "core/cost_report.h"

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/json_values.h"

namespace synclint {
namespace {

using nlohmann::json;

template <typename T>
T field(const json& obj, const char* key, T fallback, const std::string& where) {
  return json_values::member<T, CostReportError>(obj, key, std::move(fallback), where);
}

CostRun run_from(const json& j, const std::string& where) {
  if (!j.is_object()) throw CostReportError(where + ": must be an object");
  CostRun r;
  r.command = field(j, "command", std::vector<std::string>{}, where);
  r.cwd = field(j, "cwd", std::string(), where);
  r.hostname = field(j, "hostname", std::string(), where);
  r.pid = field<std::int64_t>(j, "pid", 0, where);
  r.rank = field<std::int32_t>(j, "rank", -1, where);
  r.gpu_name = field(j, "gpu_name", std::string(), where);
  r.wall_ms = field(j, "wall_ms", 0.0, where);
  r.status = field(j, "status", std::string("ok"), where);
  return r;
}

}  // namespace

CostReport parse_cost_report(std::string_view text, std::string_view source) {
  const std::string src(source);
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::exception& e) {
    throw CostReportError(src + ": not valid JSON: " + e.what());
  }
  if (!doc.is_object() || field(doc, "schema", std::string(), src) != kCostReportSchema)
    throw CostReportError(src + ": not a synclint probe report (\"schema\" must be \"" +
                          std::string(kCostReportSchema) + "\"); write one with `synclint probe -o FILE -- CMD`");
  const int version = field(doc, "version", 0, src);
  if (version > kCostReportVersion)
    throw CostReportError(src + ": report version " + std::to_string(version) +
                          " is newer than this synclint understands (" + std::to_string(kCostReportVersion) +
                          "); use a newer synclint");
  if (version < 1) throw CostReportError(src + ": report version " + std::to_string(version) + " is invalid");
  CostReport r;
  r.version = version;
  if (doc.contains("run")) r.run = run_from(doc["run"], src + ": run");
  if (auto it = doc.find("runs"); it != doc.end() && it->is_array())
    for (std::size_t i = 0; i < it->size(); ++i)
      r.runs.push_back(run_from((*it)[i], src + ": runs[" + std::to_string(i) + "]"));
  if (r.runs.empty()) r.runs.push_back(r.run);
  auto sites = doc.find("sites");
  if (sites == doc.end() || !sites->is_array()) throw CostReportError(src + ": \"sites\" must be an array");
  for (std::size_t i = 0; i < sites->size(); ++i) {
    const json& j = (*sites)[i];
    const std::string where = src + ": sites[" + std::to_string(i) + "]";
    if (!j.is_object()) throw CostReportError(where + ": must be an object");
    CostSite s;
    s.path = field(j, "path", std::string(), where);
    if (s.path.empty()) throw CostReportError(where + ": \"path\" is missing");
    s.line = field<std::uint32_t>(j, "line", 0, where);
    s.function = field(j, "function", std::string(), where);
    s.language = field(j, "language", std::string(), where);
    s.api = field(j, "api", std::string(), where);
    s.rule_guess = field(j, "rule_guess", std::string(), where);
    s.cost.calls = field<std::uint64_t>(j, "calls", 0, where);
    s.cost.host_blocked_ms = field(j, "host_blocked_ms", 0.0, where);
    s.cost.gpu_idle_ms = field(j, "gpu_idle_ms", 0.0, where);
    s.cost.predicted_saving_ms = field(j, "predicted_saving_ms", 0.0, where);
    s.cost.share_of_run = field(j, "share_of_run", 0.0, where);
    r.sites.push_back(std::move(s));
  }
  return r;
}

CostReport read_cost_report(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw CostReportError(file.string() + ": cannot open the cost report");
  std::ostringstream text;
  text << in.rdbuf();
  return parse_cost_report(text.str(), file.string());
}

}  // namespace synclint
