// SARIF 2.1.0 output: one run whose driver lists every catalog rule, results with related locations
// (the hot context), partial fingerprints, properties and fixes; input errors become tool execution
// notifications. Checked with the official validator (Sarif.Multitool validate) by a test.
#include <algorithm>
#include <cstdio>
#include <map>

#include <nlohmann/json.hpp>

#include "core/compile_error.h"
#include "emit/detail.h"

namespace synclint::emit::detail {

namespace {

using Json = nlohmann::ordered_json;

constexpr std::string_view kSchema = "https://json.schemastore.org/sarif-2.1.0.json";
constexpr std::string_view kBaseId = "SRCROOT";

// SARIF plain-text messages are complete sentences ending in a period.
std::string sentence(std::string text) {
  while (!text.empty() && (text.back() == ' ' || text.back() == '\n')) text.pop_back();
  if (text.empty()) return "(no message).";
  if (!text.ends_with('.')) text += '.';
  return text;
}

// Markdown without its markup, for help.text.
std::string plain_text(std::string_view markdown) {
  std::string out;
  std::size_t start = 0;
  while (start <= markdown.size()) {
    const std::size_t nl = markdown.find('\n', start);
    std::string_view line = markdown.substr(start, nl == std::string_view::npos ? std::string_view::npos : nl - start);
    if (!line.starts_with("```")) {
      std::size_t hashes = 0;
      while (hashes < line.size() && line[hashes] == '#') ++hashes;
      if (hashes > 0 && hashes < line.size() && line[hashes] == ' ') line.remove_prefix(hashes + 1);
      out += line;
      out += '\n';
    }
    if (nl == std::string_view::npos) break;
    start = nl + 1;
  }
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

bool is_semantic_version(std::string_view v) {
  int dots = 0;
  bool digit = false;
  std::size_t i = 0;
  for (; i < v.size() && v[i] != '-' && v[i] != '+'; ++i) {
    if (v[i] == '.') {
      if (!digit) return false;
      ++dots, digit = false;
    } else if (v[i] >= '0' && v[i] <= '9') {
      digit = true;
    } else {
      return false;
    }
  }
  return dots == 2 && digit;
}

std::uint64_t fnv1a(std::string_view text, std::uint64_t hash = 14695981039346656037ull) {
  for (char c : text) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 1099511628211ull;
  }
  return hash;
}

class SarifWriter {
 public:
  SarifWriter(const Report& report, const Catalog& catalog, const Options& options)
      : report_(report), catalog_(catalog), options_(options), sources_(options) {
    std::error_code ec;
    root_ = options.working_directory.empty() ? std::filesystem::current_path(ec) : options.working_directory;
    if (root_.is_relative()) root_ = std::filesystem::absolute(root_, ec);
    root_ = root_.lexically_normal();
    information_uri_ = options.information_uri.value_or(default_information_uri());
    if (!information_uri_.empty() && !information_uri_.ends_with('/')) information_uri_ += '/';
  }

  Json log() {
    Json run;
    run["tool"] = Json{{"driver", driver()}};
    run["invocations"] = Json::array({invocation()});
    run["originalUriBaseIds"] = Json{{kBaseId, Json{{"uri", directory_uri(root_)}}}};
    Json results = Json::array();
    for (const Finding& f : report_.findings) results.push_back(result(f));
    run["results"] = std::move(results);
    run["columnKind"] = "unicodeCodePoints";
    Json properties{{"filesChecked", report_.files_checked}};
    if (report_.has_costs) {
      Json missed = Json::array();
      for (const RuntimeSite& s : report_.missed_by_static) {
        missed.push_back(Json{{"location", physical_location(s.range)},
                              {"function", s.function},
                              {"api", s.api},
                              {"cost", cost(s.cost)}});
      }
      properties["missedByStatic"] = std::move(missed);
    }
    run["properties"] = std::move(properties);
    return Json{{"$schema", kSchema}, {"version", "2.1.0"}, {"runs", Json::array({std::move(run)})}};
  }

 private:
  Json driver() const {
    const std::string version = tool_version(options_);
    Json d;
    d["name"] = "synclint";
    d["fullName"] = "synclint " + version;
    d["version"] = version;
    if (is_semantic_version(version)) d["semanticVersion"] = version;
    if (!information_uri_.empty()) d["informationUri"] = information_uri_;
    Json rules = Json::array();
    for (const Rule& r : catalog_.rules()) rules.push_back(rule(r));
    d["rules"] = std::move(rules);
    return d;
  }

  Json rule(const Rule& r) const {
    Json j;
    j["id"] = r.id;
    j["name"] = r.name;
    j["shortDescription"] = Json{{"text", sentence(r.summary)}};
    j["fullDescription"] = Json{{"text", sentence(plain_text(r.docs.what))}};
    const std::string markdown = r.markdown();
    j["help"] = Json{{"text", plain_text(markdown)}, {"markdown", markdown}};
    if (!information_uri_.empty()) j["helpUri"] = information_uri_ + percent_encode_path(r.help_uri());
    j["defaultConfiguration"] = Json{{"level", to_string(r.default_severity)}};
    Json tags = Json::array({"performance", "gpu-synchronization"});
    for (Language l : r.languages) tags.push_back(to_string(l));
    j["properties"] = Json{{"tags", std::move(tags)}};
    return j;
  }

  Json invocation() const {
    bool fatal = false;
    Json notifications = Json::array();
    for (const FileError& e : report_.errors) {
      fatal = fatal || e.fatal;
      SourceRange where{e.path, e.position.value_or(Position{}), {}};
      notifications.push_back(Json{{"level", shown_as_error(e) ? "error" : "warning"},
                                   {"message", Json{{"text", sentence(e.message)}}},
                                   {"locations", Json::array({Json{{"physicalLocation", physical_location(where)}}})}});
    }
    Json j;
    j["executionSuccessful"] = !fatal;
    if (!notifications.empty()) j["toolExecutionNotifications"] = std::move(notifications);
    return j;
  }

  // Relative to SRCROOT when the file is under the working directory, an absolute file URI otherwise.
  Json artifact_location(const std::string& path) const {
    const std::filesystem::path p(path);
    const std::filesystem::path full = (p.is_absolute() ? p : root_ / p).lexically_normal();
    const std::filesystem::path relative = full.lexically_relative(root_);
    if (!relative.empty() && *relative.begin() != ".." && relative != ".") {
      return Json{{"uri", percent_encode_path(relative.generic_string())}, {"uriBaseId", kBaseId}};
    }
    return Json{{"uri", file_uri(full)}};
  }

  static Json region(const SourceRange& r) {
    const RegionFields f = region_fields(r);
    Json j;
    j["startLine"] = f.start_line;
    if (f.start_column) j["startColumn"] = *f.start_column;
    if (f.end_line) j["endLine"] = *f.end_line;
    if (f.end_column) j["endColumn"] = *f.end_column;
    return j;
  }

  Json physical_location(const SourceRange& r) const {
    Json j{{"artifactLocation", artifact_location(r.path)}};
    if (r.begin.line > 0) j["region"] = region(r);
    return j;
  }

  // A result always has a region: without a line the finding is about the whole file (all its lines
  // when the source can be read, else its first line), where file-level findings are conventionally put.
  Json primary_location(const SourceRange& r) {
    if (r.begin.line > 0) return physical_location(r);
    Json j = physical_location(r);
    j["region"] = Json{{"startLine", 1}};
    if (const std::optional<std::uint32_t> lines = sources_.line_count(r.path)) j["region"]["endLine"] = *lines;
    return j;
  }

  static Json cost(const SiteCost& c) {
    return Json{{"calls", c.calls},
                {"hostBlockedMs", c.host_blocked_ms},
                {"gpuIdleMs", c.gpu_idle_ms},
                {"predictedSavingMs", c.predicted_saving_ms},
                {"shareOfRun", c.share_of_run}};
  }

  // Hash of the rule, the path and the source line with all white space removed (the message when the
  // source cannot be read), plus which occurrence of that hash this is, so that moving code keeps it.
  // The hash of a line is kept for the line's other findings of the same rule and path (many findings on
  // one long line hash it once).
  std::string fingerprint(const Finding& f) {
    std::uint64_t h = fnv1a(f.rule_id);
    h = fnv1a(std::string_view("\0", 1), h);
    h = fnv1a(f.range.path, h);
    h = fnv1a(std::string_view("\0", 1), h);
    if (const auto line = sources_.line(f.range.path, f.range.begin.line)) {
      auto [kept, added] = line_hashes_.try_emplace(std::pair{line->data(), h}, 0);
      if (added) {
        std::string normalized;
        for (char c : *line) {
          if (c != ' ' && c != '\t' && c != '\r' && c != '\f' && c != '\v') normalized += c;
        }
        kept->second = fnv1a(normalized, h);
      }
      h = kept->second;
    } else {
      h = fnv1a(f.message, h);
    }
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
    const int occurrence = ++occurrences_[hex];
    return std::string(hex) + ":" + std::to_string(occurrence);
  }

  Json result(const Finding& f) {
    Json j;
    j["ruleId"] = f.rule_id;
    if (const auto index = rule_index(catalog_, f.rule_id)) j["ruleIndex"] = *index;
    j["level"] = to_string(f.severity);  // SARIF's levels are the names of synclint's severities
    j["message"] = Json{{"text", sentence(f.message)}};
    j["locations"] = Json::array({Json{{"physicalLocation", primary_location(f.range)}}});
    if (!f.related.empty()) {
      Json related = Json::array();
      int id = 0;
      for (const RelatedLocation& r : f.related) {
        related.push_back(Json{{"id", ++id},
                               {"physicalLocation", physical_location(r.range)},
                               {"message", Json{{"text", sentence(r.message)}}}});
      }
      j["relatedLocations"] = std::move(related);
    }
    j["partialFingerprints"] = Json{{"synclintLineHash/v1", fingerprint(f)}};
    if (std::any_of(f.edits.begin(), f.edits.end(), applicable)) j["fixes"] = Json::array({fix(f)});
    Json properties;
    properties["confidence"] = to_string(f.confidence);
    properties["periodic"] = f.periodic;
    properties["readsPerStep"] = f.reads_per_step;
    if (!f.function.empty()) properties["function"] = f.function;
    if (!f.fix.empty()) properties["fixSuggestion"] = f.fix;
    if (f.cost) properties["cost"] = cost(*f.cost);
    j["properties"] = std::move(properties);
    return j;
  }

  // A replacement needs a region: an edit without a line cannot be applied.
  static bool applicable(const TextEdit& e) { return e.range.begin.line > 0; }

  Json fix(const Finding& f) const {
    std::map<std::string, Json> by_file;  // one artifactChange per file, in path order
    for (const TextEdit& e : f.edits) {
      if (!applicable(e)) continue;
      Json& change = by_file[e.range.path];
      if (change.is_null()) change = Json{{"artifactLocation", artifact_location(e.range.path)}, {"replacements", Json::array()}};
      change["replacements"].push_back(Json{{"deletedRegion", region(e.range)}, {"insertedContent", Json{{"text", e.replacement}}}});
    }
    Json changes = Json::array();
    for (auto& [path, change] : by_file) changes.push_back(std::move(change));
    return Json{{"description", Json{{"text", sentence(f.fix.empty() ? "Apply the suggested edit" : f.fix)}}},
                {"artifactChanges", std::move(changes)}};
  }

  const Report& report_;
  const Catalog& catalog_;
  const Options& options_;
  SourceCache sources_;
  std::filesystem::path root_;
  std::string information_uri_;
  std::map<std::string, int> occurrences_;
  std::map<std::pair<const char*, std::uint64_t>, std::uint64_t> line_hashes_;  // (line, hash before it) -> after
};

}  // namespace

void write_sarif(std::ostream& out, const Report& report, const Catalog& catalog, const Options& options) {
  out << SarifWriter(report, catalog, options).log().dump(2, ' ', false, Json::error_handler_t::replace) << '\n';
}

}  // namespace synclint::emit::detail
