#include "core/finding.h"

#include <tuple>

namespace synclint {

std::string_view to_string(Severity s) {
  switch (s) {
    case Severity::Note: return "note";
    case Severity::Warning: return "warning";
    case Severity::Error: return "error";
  }
  return "warning";
}

std::optional<Severity> parse_severity(std::string_view text) {
  if (text == "note" || text == "info") return Severity::Note;
  if (text == "warning") return Severity::Warning;
  if (text == "error") return Severity::Error;
  return std::nullopt;
}

std::string_view to_string(Language l) { return l == Language::Python ? "python" : "cpp"; }

std::optional<Language> parse_language(std::string_view text) {
  if (text == "python") return Language::Python;
  if (text == "cpp" || text == "c++") return Language::Cxx;
  return std::nullopt;
}

std::string_view to_string(Confidence c) {
  switch (c) {
    case Confidence::Low: return "low";
    case Confidence::Medium: return "medium";
    case Confidence::High: return "high";
  }
  return "high";
}

bool finding_less(const Finding& a, const Finding& b) {
  return std::tie(a.range.path, a.range.begin, a.rule_id, a.message) <
         std::tie(b.range.path, b.range.begin, b.rule_id, b.message);
}

}  // namespace synclint
