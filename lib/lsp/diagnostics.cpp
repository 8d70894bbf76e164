// Findings of the last analysis as LSP diagnostics, and configuration problems as diagnostics on the
// configuration file.
#include <cstdio>
#include <fstream>
#include <sstream>

#include "core/compile_error.h"
#include "engine/discover.h"
#include "lsp/server.h"

namespace synclint::lsp {

namespace {

DiagnosticSeverity severity_of(Severity s) {
  switch (s) {
    case Severity::Error: return DiagnosticSeverity::Error;
    case Severity::Warning: return DiagnosticSeverity::Warning;
    case Severity::Note: break;
  }
  return DiagnosticSeverity::Information;
}

std::string milliseconds(double ms) {
  char buf[32];
  std::snprintf(buf, sizeof buf, ms >= 100 ? "%.0f ms" : "%.1f ms", ms);
  return buf;
}

// Where in a configuration file the problem is: the line naming the key the message quotes, else the top.
Range locate_problem(const std::filesystem::path& file, const std::string& message) {
  Range r{{0, 0}, {0, 1}};
  const auto q = message.find('\'');
  const auto q2 = q == std::string::npos ? q : message.find('\'', q + 1);
  if (q2 == std::string::npos) return r;
  const std::string key = message.substr(q + 1, q2 - q - 1);
  std::ifstream in(file);
  std::string line;
  for (std::uint32_t n = 0; !key.empty() && std::getline(in, line); ++n) {
    const auto at = line.find(key);
    if (at == std::string::npos || line.starts_with("#")) continue;
    return Range{{n, static_cast<std::uint32_t>(at)}, {n, static_cast<std::uint32_t>(at + key.size())}};
  }
  return r;
}

}  // namespace

std::string Server::rule_href(const std::string& rule_id) const {
  std::string base = settings_.rules_base_url.value_or(default_rules_base_url());
  if (!base.empty() && base.back() != '/') base.push_back('/');
  return base + rule_id + ".md";
}

Range Server::range_of(const SourceRange& range) const {
  const auto convert = [&](synclint::Position p) {
    const std::uint32_t line = p.line > 0 ? p.line - 1 : 0;
    const std::uint32_t column = p.column > 0 ? p.column - 1 : 0;
    auto it = documents_.find(path_to_uri(range.path));
    if (it != documents_.end()) return it->second.position_of(line, column);
    return Position{line, column};
  };
  return Range{convert(range.begin), convert(range.end)};
}

std::vector<Diagnostic> Server::diagnostics_for(const std::string& path) {
  std::vector<Diagnostic> out = config_diagnostics(path);
  // The file's own problems (a syntax error, a file the parser gave up on, a compile error), as an error
  // at their place, or on the first line when they have none. A C++ file's problems without a place (no
  // compilation database for it) go to the log only, as clangd does.
  const bool python = engine::language_of(path) == Language::Python;
  for (const FileError& e : result_.errors) {
    if (e.path != path || (!e.position && !python)) continue;
    Diagnostic d;
    const synclint::Position at = e.position ? *e.position : synclint::Position{1, 1};
    d.range = range_of(SourceRange{path, at, at});
    d.severity = shown_as_error(e) ? DiagnosticSeverity::Error : DiagnosticSeverity::Warning;
    d.message = std::string(shown_message(e));
    out.push_back(std::move(d));
  }
  for (const Finding& f : findings_in(path)) {
    Diagnostic d;
    d.range = range_of(f.range);
    d.severity = severity_of(f.severity);
    d.code = f.rule_id;
    d.code_href = rule_href(f.rule_id);
    d.message = f.message;
    if (f.cost) {
      d.message += " [measured: " + std::to_string(f.cost->calls) + " calls, predicted saving " +
                   milliseconds(f.cost->predicted_saving_ms) + "]";
    }
    for (const RelatedLocation& r : f.related)
      d.related.push_back({Location{path_to_uri(r.range.path), range_of(r.range)}, r.message});
    out.push_back(std::move(d));
  }
  return out;
}

std::vector<Diagnostic> Server::config_diagnostics(const std::string& path) const {
  std::vector<Diagnostic> out;
  for (const engine::ConfigProblem& problem : result_.config_problems) {
    if (engine::workspace_key(problem.file) != path) continue;
    Diagnostic d;
    d.range = locate_problem(problem.file, problem.message);
    d.severity = DiagnosticSeverity::Error;
    d.code = "config";
    d.message = problem.message + " (files under this configuration are checked with the defaults until it is fixed)";
    out.push_back(std::move(d));
  }
  return out;
}

const std::vector<Finding>& Server::findings_in(const std::string& path) {
  static const std::vector<Finding> none;
  auto it = result_.findings.find(path);
  if (it == result_.findings.end()) return none;
  if (!it->second) it->second = workspace_->findings_of(path);  // left by the analysis: made when first asked
  return it->second ? *it->second : none;
}

std::vector<const Finding*> Server::findings_at(const std::string& path, Range range) {
  std::vector<const Finding*> out;
  for (const Finding& f : findings_in(path)) {
    const Range r = range_of(f.range);
    // Overlap, with an empty range at either end counting as touching.
    if (r.end < range.start || range.end < r.start) continue;
    out.push_back(&f);
  }
  return out;
}

}  // namespace synclint::lsp
