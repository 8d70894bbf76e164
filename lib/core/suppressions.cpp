#include "core/suppressions.h"

#include <algorithm>
#include <limits>
#include <cctype>
#include <optional>
#include <string_view>

#include "core/catalog.h"
#include "core/suggest.h"

namespace synclint {

namespace {

// Code points in `text` (UTF-8): columns are counted in code points.
std::uint32_t code_points(std::string_view text) {
  return static_cast<std::uint32_t>(
      std::count_if(text.begin(), text.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

// An id as an unknown-rule message quotes it: whole up to 64 bytes, else its start (cut at a character
// boundary) and its length, so that a comment of garbage does not make a message of megabytes.
std::string quoted_id(const std::string& id) {
  if (id.size() <= 64) return "'" + id + "'";
  std::size_t cut = 48;
  while (cut > 0 && (static_cast<unsigned char>(id[cut]) & 0xC0) == 0x80) --cut;
  return "'" + id.substr(0, cut) + "...' (" + std::to_string(id.size()) + " bytes)";
}

bool id_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '-'; }

std::vector<std::string> split_ids(std::string_view list) {
  std::vector<std::string> ids;
  std::size_t i = 0;
  while (i < list.size()) {
    while (i < list.size() && (std::isspace(static_cast<unsigned char>(list[i])) != 0 || list[i] == ',')) ++i;
    const std::size_t start = i;
    while (i < list.size() && std::isspace(static_cast<unsigned char>(list[i])) == 0 && list[i] != ',') ++i;
    if (i > start) ids.emplace_back(list.substr(start, i - start));
  }
  return ids;
}

// Position of `word` in `text` at or after `from` (ASCII case-insensitive when `fold`); npos if absent.
std::size_t find_word(std::string_view text, std::string_view word, std::size_t from, bool fold) {
  for (std::size_t i = from; i + word.size() <= text.size(); ++i) {
    const std::string_view here = text.substr(i, word.size());
    if (fold ? iequals(here, word) : here == word) return i;
  }
  return std::string_view::npos;
}

bool starts_with_word(std::string_view text, std::size_t at, std::string_view word) {
  return iequals(text.substr(at, word.size()), word) && (at + word.size() == text.size() || !id_char(text[at + word.size()]));
}

std::size_t skip_spaces(std::string_view text, std::size_t i) {
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i])) != 0) ++i;
  return i;
}

// The text between `open` at `i` and the matching `close` (to the end when unclosed); nullopt when
// text[i] is not `open`.
std::optional<std::string_view> bracketed(std::string_view text, std::size_t i, char open, char close) {
  if (i >= text.size() || text[i] != open) return std::nullopt;
  const std::size_t end = text.find(close, i + 1);
  return text.substr(i + 1, (end == std::string_view::npos ? text.size() : end) - i - 1);
}

struct Directive {
  std::vector<std::string> ids;
  bool has_list = false;  // codes were given (possibly none of them ours)
  bool file_level = false;
  bool next_line = false;
  bool begin = false;  // NOLINTBEGIN: up to the matching NOLINTEND
  bool end = false;    // NOLINTEND
};

// `synclint: ignore[...]` and `synclint: ignore-file[...]`, both languages. An unclosed list ends where the
// next directive starts (so that a comment of many unclosed directives takes linear time).
std::vector<Directive> synclint_directives(std::string_view text) {
  std::vector<Directive> out;
  for (std::size_t at = find_word(text, "synclint:", 0, true), next = 0; at != std::string_view::npos; at = next) {
    next = find_word(text, "synclint:", at + 1, true);
    const std::string_view own = text.substr(0, next);
    const std::size_t i = skip_spaces(own, at + 9);
    Directive d;
    std::size_t after = 0;
    if (starts_with_word(own, i, "ignore-file")) {
      d.file_level = true;
      after = i + 11;
    } else if (starts_with_word(own, i, "ignore")) {
      after = i + 6;
    } else {
      continue;
    }
    if (auto list = bracketed(own, after, '[', ']')) d.ids = split_ids(*list);
    out.push_back(std::move(d));
  }
  return out;
}

// flake8's `# noqa` / `# noqa: A1, B2`, Python.
std::optional<Directive> noqa_directive(std::string_view text) {
  for (std::size_t hash = text.find('#'); hash != std::string_view::npos; hash = text.find('#', hash + 1)) {
    const std::size_t i = skip_spaces(text, hash + 1);
    if (!starts_with_word(text, i, "noqa")) continue;
    Directive d;
    std::size_t j = i + 4;
    if (j < text.size() && text[j] == ':') {
      d.has_list = true;
      j = skip_spaces(text, j + 1);
      // Codes separated by commas or spaces; the list ends at anything else.
      while (j < text.size() && id_char(text[j])) {
        const std::size_t start = j;
        while (j < text.size() && id_char(text[j])) ++j;
        d.ids.emplace_back(text.substr(start, j - start));
        while (j < text.size() && (text[j] == ',' || std::isspace(static_cast<unsigned char>(text[j])) != 0)) ++j;
      }
    }
    return d;
  }
  return std::nullopt;
}

// clang-tidy's `NOLINT`, `NOLINT(a, b)`, `NOLINTNEXTLINE(a)`, C++. An unclosed list ends where the next
// `NOLINT` starts.
std::vector<Directive> nolint_directives(std::string_view full) {
  std::vector<Directive> out;
  for (std::size_t at = find_word(full, "NOLINT", 0, false), next = 0; at != std::string_view::npos; at = next) {
    next = find_word(full, "NOLINT", at + 1, false);
    const std::string_view text = full.substr(0, next);
    if (at > 0 && id_char(text[at - 1])) continue;
    Directive d;
    std::size_t after = at + 6;
    if (text.substr(after, 8) == "NEXTLINE") {
      d.next_line = true;
      after += 8;
    } else if (text.substr(after, 5) == "BEGIN") {
      d.begin = true;
      after += 5;
    } else if (text.substr(after, 3) == "END") {
      d.end = true;
      after += 3;
    }
    if (after < text.size() && id_char(text[after])) continue;  // other words
    if (auto list = bracketed(text, after, '(', ')')) {
      d.has_list = true;
      d.ids = split_ids(*list);
      // clang-tidy names checks `synclint-SYNC001` (the tool's prefix, then the rule).
      for (std::string& id : d.ids)
        if (id.size() > 9 && iequals(std::string_view(id).substr(0, 9), "synclint-")) id.erase(0, 9);
    }
    out.push_back(std::move(d));
  }
  return out;
}

// A code another tool's comment may carry that belongs to synclint: SYNCnnn or a rule name.
bool is_synclint_code(const std::string& code) {
  const bool sync_code = code.size() > 4 && iequals(std::string_view(code).substr(0, 4), "SYNC") &&
                         std::all_of(code.begin() + 4, code.end(), [](char c) { return c >= '0' && c <= '9'; });
  return sync_code || Catalog::builtin().find(code) != nullptr;
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
  Suppressions result;
  result.path_ = path;
  std::vector<std::size_t> open_ranges;  // NOLINTBEGIN without its NOLINTEND yet
  for (const Comment& comment : comments) {
    const auto add = [&](const Directive& d, bool report_unused) {
      if (d.end) {
        // Closes the last open NOLINTBEGIN (an unmatched NOLINTEND is ignored).
        if (!open_ranges.empty()) {
          result.items_[open_ranges.back()].last_line = comment.begin.line;
          open_ranges.pop_back();
        }
        return;
      }
      if (d.begin) open_ranges.push_back(result.items_.size());
      Suppression s;
      s.file_level = d.file_level;
      s.line = d.file_level ? 0 : comment.begin.line + (d.next_line ? 1 : 0);
      s.where = comment.begin;
      s.end = comment.end;
      if (s.end.line == 0) s.end = Position{comment.begin.line, comment.begin.column + code_points(comment.text)};
      s.ids = d.ids;
      s.id_used.assign(s.ids.size(), false);
      s.report_unused = report_unused;
      s.last_line = d.begin ? std::numeric_limits<std::uint32_t>::max() : s.line;
      result.items_.push_back(std::move(s));
    };
    for (const Directive& d : synclint_directives(comment.text)) add(d, true);
    // Another tool's directive: its codes for other tools are dropped, a list with no synclint code is
    // not a synclint suppression, and a bare one suppresses everything but is never reported unused.
    const auto add_foreign = [&](Directive d) {
      if (!d.has_list || d.ids.empty()) return add(d, false);  // `# noqa:` with no codes is a bare noqa
      std::erase_if(d.ids, [](const std::string& id) { return !is_synclint_code(id); });
      if (!d.ids.empty()) add(d, true);
    };
    if (lang == Language::Python) {
      if (auto d = noqa_directive(comment.text)) add_foreign(std::move(*d));
    } else {
      for (Directive& d : nolint_directives(comment.text)) add_foreign(std::move(d));
    }
  }
  return result;
}

void Suppressions::apply(std::vector<Finding>& findings) {
  const auto covers_line = [](const Suppression& s, const Finding& f) {
    if (s.file_level) return true;
    const std::uint32_t last = f.range.end.line > f.range.begin.line && f.range.end.column > 1 ? f.range.end.line
                                                                                              : f.range.begin.line;
    return s.line <= last && s.last_line >= f.range.begin.line;
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
    std::vector<std::pair<std::string, std::string>> reports;  // message, fix
    const std::string remove_comment = "remove the suppression comment";
    if (s.ids.empty() && !s.used) {
      reports.emplace_back(s.file_level ? "unused file-level suppression: no finding in this file"
                                        : "unused suppression: no finding on this line",
                           remove_comment);
    }
    for (std::size_t i = 0; i < s.ids.size(); ++i) {
      const std::string& id = s.ids[i];
      if (iequals(id, "SYNC100") || id == "unused-suppression") continue;
      if (catalog.find(id) == nullptr) {
        reports.emplace_back("suppression names unknown rule " + quoted_id(id) + did_you_mean(id, known),
                             "correct the rule id or name (`synclint rules` lists them), or remove it");
      } else if (!s.id_used[i]) {
        reports.emplace_back("unused suppression for " + id,
                             "remove " + id + " from the suppression comment (the whole comment if nothing else is left)");
      }
    }
    for (auto& [message, fix] : reports) {
      Finding f;
      f.rule_id = self != nullptr ? self->id : "SYNC100";
      f.rule_name = self != nullptr ? self->name : "unused-suppression";
      f.severity = self != nullptr ? self->default_severity : Severity::Warning;
      f.range = SourceRange{path_, s.where, s.end};
      f.message = std::move(message);
      f.fix = std::move(fix);
      out.push_back(std::move(f));
    }
  }
  std::sort(out.begin(), out.end(), finding_less);
  return out;
}

}  // namespace synclint
