#include "core/suppressions.h"

#include <algorithm>
#include <regex>

#include "core/catalog.h"
#include "core/suggest.h"

namespace synclint {

namespace {

// Code points in `text` (UTF-8): columns are counted in code points.
std::uint32_t code_points(std::string_view text) {
  return static_cast<std::uint32_t>(
      std::count_if(text.begin(), text.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

std::vector<std::string> split_ids(const std::string& list) {
  std::vector<std::string> ids;
  static const std::regex token("[^\\s,]+");
  for (auto it = std::sregex_iterator(list.begin(), list.end(), token); it != std::sregex_iterator(); ++it) {
    ids.push_back(it->str());
  }
  return ids;
}

// A code another tool's comment may carry that belongs to synclint: SYNCnnn or a rule name.
bool is_synclint_code(const std::string& code) {
  static const std::regex sync_code("SYNC[0-9]+", std::regex::icase);
  return std::regex_match(code, sync_code) || Catalog::builtin().find(code) != nullptr;
}

bool matches(const std::string& id, const Finding& finding) {
  return iequals(id, finding.rule_id) || id == finding.rule_name;
}

bool names_unused_suppression_rule(const Suppression& s) {
  return std::any_of(s.ids.begin(), s.ids.end(), [](const std::string& id) {
    return iequals(id, "SYNC100") || id == "unused-suppression";
  });
}

}  // namespace

Suppressions Suppressions::parse(Language lang, const std::string& path, const std::vector<Comment>& comments) {
  // `synclint: ignore-file[...]`, `synclint: ignore[...]` (both languages).
  static const std::regex synclint_re(R"(synclint:\s*(ignore-file|ignore)\b(?!-)(?:\[([^\]]*)\])?)",
                                      std::regex::icase);
  // flake8's form: `# noqa`, `# noqa: A1, B2` (Python).
  static const std::regex noqa_re(R"(#\s*noqa\b(?::\s*([\w\-]+(?:[\s,]+[\w\-]+)*))?)", std::regex::icase);
  // clang-tidy's form: `NOLINT`, `NOLINT(a, b)`, `NOLINTNEXTLINE(a)` (C++).
  static const std::regex nolint_re(R"(\bNOLINT(NEXTLINE)?\b(?:\(([^)]*)\))?)");

  Suppressions result;
  result.path_ = path;
  for (const Comment& comment : comments) {
    const auto add = [&](std::uint32_t line, std::vector<std::string> ids, bool file_level, bool report_unused) {
      Suppression s;
      s.line = file_level ? 0 : line;
      s.where = comment.begin;
      s.end = comment.end;
      if (s.end.line == 0) s.end = Position{comment.begin.line, comment.begin.column + code_points(comment.text)};
      s.id_used.assign(ids.size(), false);
      s.ids = std::move(ids);
      s.file_level = file_level;
      s.report_unused = report_unused;
      result.items_.push_back(std::move(s));
    };
    const std::string& text = comment.text;
    for (auto it = std::sregex_iterator(text.begin(), text.end(), synclint_re); it != std::sregex_iterator(); ++it) {
      const bool file_level = iequals((*it)[1].str(), "ignore-file");
      add(comment.begin.line, split_ids((*it)[2].str()), file_level, true);
    }
    // Codes for other tools are dropped; a list with no synclint code is not a synclint suppression.
    const auto add_foreign = [&](std::uint32_t line, const std::ssub_match& list) {
      if (!list.matched) {
        add(line, {}, false, false);
        return;
      }
      std::vector<std::string> ids = split_ids(list.str());
      std::erase_if(ids, [](const std::string& id) { return !is_synclint_code(id); });
      if (!ids.empty()) add(line, std::move(ids), false, true);
    };
    if (lang == Language::Python) {
      std::smatch m;
      if (std::regex_search(text, m, noqa_re)) add_foreign(comment.begin.line, m[1]);
    } else {
      for (auto it = std::sregex_iterator(text.begin(), text.end(), nolint_re); it != std::sregex_iterator(); ++it) {
        const std::uint32_t line = comment.begin.line + ((*it)[1].matched ? 1 : 0);
        add_foreign(line, (*it)[2]);
      }
    }
  }
  return result;
}

void Suppressions::apply(std::vector<Finding>& findings) {
  const auto covers_line = [](const Suppression& s, const Finding& f) {
    if (s.file_level) return true;
    const std::uint32_t last = f.range.end.line > f.range.begin.line && f.range.end.column > 1 ? f.range.end.line
                                                                                              : f.range.begin.line;
    return s.line >= f.range.begin.line && s.line <= last;
  };
  std::erase_if(findings, [&](const Finding& f) {
    if (f.range.path != path_) return false;
    bool suppressed = false;
    for (Suppression& s : items_) {
      if (!covers_line(s, f)) continue;
      if (s.ids.empty()) {
        s.used = true;
        suppressed = true;
        continue;
      }
      for (std::size_t i = 0; i < s.ids.size(); ++i) {
        if (matches(s.ids[i], f)) {
          s.id_used[i] = true;
          s.used = true;
          suppressed = true;
        }
      }
    }
    return suppressed;
  });
}

std::vector<Finding> Suppressions::unused(const Catalog& catalog) const {
  const Rule* self = catalog.find("SYNC100");
  // An unused suppression is itself silenced by a file-level or same-line suppression of SYNC100.
  const auto silenced = [&](std::uint32_t line) {
    return std::any_of(items_.begin(), items_.end(), [&](const Suppression& s) {
      return (s.file_level || s.line == line) && names_unused_suppression_rule(s);
    });
  };
  const std::vector<std::string> known = catalog.ids_and_names();

  std::vector<Finding> out;
  for (const Suppression& s : items_) {
    if (!s.report_unused || silenced(s.where.line)) continue;
    std::vector<std::string> messages;
    if (s.ids.empty()) {
      if (!s.used) messages.push_back(s.file_level ? "unused file-level suppression: no finding in this file"
                                                   : "unused suppression: no finding on this line");
    }
    for (std::size_t i = 0; i < s.ids.size(); ++i) {
      const std::string& id = s.ids[i];
      if (iequals(id, "SYNC100") || id == "unused-suppression") continue;
      if (catalog.find(id) == nullptr) {
        messages.push_back("suppression names unknown rule '" + id + "'" + did_you_mean(id, known));
      } else if (!s.id_used[i]) {
        messages.push_back("unused suppression for " + id);
      }
    }
    for (auto& message : messages) {
      Finding f;
      f.rule_id = self != nullptr ? self->id : "SYNC100";
      f.rule_name = self != nullptr ? self->name : "unused-suppression";
      f.severity = self != nullptr ? self->default_severity : Severity::Warning;
      f.range = SourceRange{path_, s.where, s.end};
      f.message = std::move(message);
      f.fix = "remove the suppression comment, or the ids in it that no longer match a finding";
      out.push_back(std::move(f));
    }
  }
  std::sort(out.begin(), out.end(), finding_less);
  return out;
}

}  // namespace synclint
