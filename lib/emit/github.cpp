// GitHub Actions workflow commands: one annotation per finding (::warning / ::notice / ::error), per
// input error, and per runtime synchronization the static analysis missed.
#include "core/compile_error.h"
#include "emit/detail.h"

namespace synclint::emit::detail {

namespace {

// Escaping from GitHub's runner (toolkit/packages/core/src/command.ts): the message escapes %, \r and
// \n; property values also escape ':' and ','.
std::string escape_data(std::string_view text) {
  std::string out;
  for (char c : valid_utf8(text)) {
    switch (c) {
      case '%': out += "%25"; break;
      case '\r': out += "%0D"; break;
      case '\n': out += "%0A"; break;
      default: out += c;
    }
  }
  return out;
}

std::string escape_property(std::string_view text) {
  std::string out;
  for (char c : escape_data(text)) {
    switch (c) {
      case ':': out += "%3A"; break;
      case ',': out += "%2C"; break;
      default: out += c;
    }
  }
  return out;
}

std::string_view command(Severity s) { return s == Severity::Note ? "notice" : to_string(s); }

void annotate(std::ostream& out, Severity severity, const SourceRange& range, std::string_view title,
              std::string_view message) {
  out << "::" << command(severity) << " file=" << escape_property(range.path);
  const RegionFields f = region_fields(range);
  if (f.start_line > 0) out << ",line=" << f.start_line;
  if (f.start_column) out << ",col=" << *f.start_column;
  if (f.end_line) out << ",endLine=" << *f.end_line;
  if (f.end_column) out << ",endColumn=" << *f.end_column;
  out << ",title=" << escape_property(title) << "::" << escape_data(message) << '\n';
}

}  // namespace

void write_github(std::ostream& out, const Report& report, const Catalog&, const Options&) {
  for (const Finding& f : report.findings) {
    std::string message = f.message;
    for (const RelatedLocation& r : f.related) message += "\n" + location_text(r.range) + ": " + r.message;
    if (!f.fix.empty()) message += "\nfix: " + f.fix;
    if (f.cost) {
      message += "\ncost: " + cost_text(*f.cost);
    } else if (report.has_costs) {
      message += "\ncost: never ran under the probe";
    }
    annotate(out, f.severity, f.range, f.rule_id + (f.rule_name.empty() ? "" : " " + f.rule_name), message);
  }
  for (const FileError& e : report.errors) {
    const SourceRange where{e.path, e.position.value_or(Position{}), {}};
    annotate(out, shown_as_error(e) ? Severity::Error : Severity::Warning, where, "synclint", e.message);
  }
  if (report.has_costs) {
    for (const RuntimeSite& s : report.missed_by_static) {
      std::string message = "Runtime synchronization missed by static analysis: " + s.api;
      if (!s.function.empty()) message += " in " + s.function;
      message += "\ncost: " + cost_text(s.cost);
      annotate(out, Severity::Note, s.range, "synclint runtime sync", message);
    }
  }
}

}  // namespace synclint::emit::detail
