// JUnit XML: one <testsuite> per file, one failing <testcase> per finding, an erroring one per input
// error, and a passing one for each clean file (Report::checked_paths; when the engine did not list the
// files, one passing case stands for all clean files).
#include <map>

#include "emit/detail.h"

namespace synclint::emit::detail {

namespace {

// XML 1.0 text or attribute value: markup escaped, characters XML forbids replaced by U+FFFD, and in
// attributes the white space that parsers would normalise kept as character references.
std::string xml(std::string_view text, bool attribute) {
  std::string out;
  const std::string valid = valid_utf8(text);
  for (const CodePoint& cp : decode_utf8(valid)) {
    const char32_t c = cp.value;
    switch (c) {
      case '&': out += "&amp;"; continue;
      case '<': out += "&lt;"; continue;
      case '>': out += "&gt;"; continue;
      case '"': out += attribute ? "&quot;" : "\""; continue;
      case '\'': out += attribute ? "&apos;" : "'"; continue;
      case '\n': out += attribute ? "&#10;" : "\n"; continue;
      case '\r': out += "&#13;"; continue;
      case '\t': out += attribute ? "&#9;" : "\t"; continue;
      default: break;
    }
    if (c < 0x20 || c == 0xFFFE || c == 0xFFFF) {
      append_utf8(out, 0xFFFD);
    } else {
      out.append(valid, cp.offset, cp.size);
    }
  }
  return out;
}

std::string attr(std::string_view text) { return xml(text, true); }

struct Suite {
  std::vector<const Finding*> findings;
  std::vector<const FileError*> errors;
};

std::string finding_details(const Finding& f, bool has_costs) {
  std::string text = location_text(f.range) + ": " + std::string(to_string(f.severity)) + ": " + f.message + " " +
                     rule_tag(f) + "\n";
  for (const RelatedLocation& r : f.related) text += location_text(r.range) + ": note: " + r.message + "\n";
  if (!f.fix.empty()) text += "fix: " + f.fix + "\n";
  if (f.cost) {
    text += "cost: " + cost_text(*f.cost) + "\n";
  } else if (has_costs) {
    text += "cost: never ran under the probe\n";
  }
  return text;
}

void passing_suite(std::ostream& out, const std::string& name, const std::string& test) {
  out << "  <testsuite name=\"" << attr(name) << "\" tests=\"1\" failures=\"0\" errors=\"0\">\n"
      << "    <testcase classname=\"" << attr(name) << "\" name=\"" << attr(test) << "\"/>\n"
      << "  </testsuite>\n";
}

}  // namespace

void write_junit(std::ostream& out, const Report& report, const Catalog&, const Options& options) {
  std::map<std::string, Suite> suites;
  for (const Finding& f : report.findings) suites[f.range.path].findings.push_back(&f);
  for (const FileError& e : report.errors) suites[e.path].errors.push_back(&e);

  std::size_t unnamed_clean = 0;
  if (report.checked_paths.empty()) {
    unnamed_clean = report.files_checked > suites.size() ? report.files_checked - suites.size() : 0;
  }
  std::size_t clean = 0;
  for (const std::string& p : report.checked_paths) {
    if (!suites.contains(p)) ++clean;
    suites[p];
  }

  std::size_t errors = 0;
  for (const FileError& e : report.errors) errors += e.fatal ? 1 : 0;
  const std::size_t tests = report.findings.size() + report.errors.size() + clean + (unnamed_clean > 0 ? 1 : 0);

  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out << "<testsuites name=\"synclint " << attr(tool_version(options)) << "\" tests=\"" << tests << "\" failures=\""
      << report.findings.size() << "\" errors=\"" << errors << "\">\n";
  for (const auto& [path, suite] : suites) {
    if (suite.findings.empty() && suite.errors.empty()) {
      passing_suite(out, path, "no findings");
      continue;
    }
    std::size_t suite_errors = 0;
    for (const FileError* e : suite.errors) suite_errors += e->fatal ? 1 : 0;
    out << "  <testsuite name=\"" << attr(path) << "\" tests=\"" << suite.findings.size() + suite.errors.size()
        << "\" failures=\"" << suite.findings.size() << "\" errors=\"" << suite_errors << "\">\n";
    for (const FileError* e : suite.errors) {
      out << "    <testcase classname=\"" << attr(path) << "\" name=\"" << attr("analysis of " + location_text(*e))
          << "\" file=\"" << attr(path) << "\"";
      if (e->position) out << " line=\"" << e->position->line << "\"";
      if (e->fatal) {
        out << ">\n      <error type=\"error\" message=\"" << attr(e->message) << "\">" << xml(e->message, false)
            << "</error>\n    </testcase>\n";
      } else {
        out << ">\n      <system-out>" << xml("warning: " + e->message, false) << "</system-out>\n    </testcase>\n";
      }
    }
    for (const Finding* f : suite.findings) {
      out << "    <testcase classname=\"" << attr(path) << "\" name=\""
          << attr(f->rule_id + (f->rule_name.empty() ? "" : " " + f->rule_name) + " at " + location_text(f->range))
          << "\" file=\"" << attr(path) << "\" line=\"" << f->range.begin.line << "\">\n"
          << "      <failure type=\"" << to_string(f->severity) << "\" message=\"" << attr(f->message) << "\">"
          << xml(finding_details(*f, report.has_costs), false) << "</failure>\n    </testcase>\n";
    }
    out << "  </testsuite>\n";
  }
  if (unnamed_clean > 0) passing_suite(out, "synclint", plural(unnamed_clean, "file", "files") + " without findings");
  out << "</testsuites>\n";
}

}  // namespace synclint::emit::detail
