// textDocument/codeAction: the suppression comments (line and file), "remove" for unused suppressions
// (SYNC100), and the front-end's mechanical fixes where it provides them.
#include <regex>

#include "engine/discover.h"
#include "lsp/server.h"

namespace synclint::lsp {

namespace {

constexpr const char* kUnusedSuppression = "SYNC100";

// Where a file-level comment goes: after a shebang and an encoding line.
std::uint32_t header_lines(const Document& doc) {
  std::uint32_t n = 0;
  while (n < 2 && n < doc.line_count()) {
    const std::string_view line = doc.line(n);
    const bool shebang = n == 0 && line.starts_with("#!");
    const bool coding = line.starts_with("#") && line.find("coding") != std::string_view::npos;
    if (!shebang && !coding) break;
    ++n;
  }
  return n;
}

// The edit that removes `id` from the suppression comment on `line` (whole comment when it was the only one).
std::optional<TextEdit> remove_suppression(const Document& doc, std::uint32_t line_no, const std::string& id,
                                           PositionEncoding encoding) {
  const std::string line(doc.line(line_no));
  std::size_t hash = std::string::npos;
  for (const char* start : {"# synclint:", "# noqa", "// synclint:", "// NOLINT"})
    hash = std::min(hash, line.find(start));
  if (hash == std::string::npos) return std::nullopt;
  const auto column = [&](std::size_t byte) {
    return encode_column(line, static_cast<std::uint32_t>(
                                   std::count_if(line.begin(), line.begin() + static_cast<std::ptrdiff_t>(byte),
                                                 [](char c) { return (static_cast<unsigned char>(c) & 0xc0) != 0x80; })),
                         encoding);
  };
  std::string comment = line.substr(hash);
  std::smatch m;
  static const std::regex kList(
      R"(^((?:#|//) synclint:\s*ignore(?:-file)?\[|# noqa:\s*|// NOLINT(?:NEXTLINE)?\()([^\])]*))");
  if (!id.empty() && std::regex_search(comment, m, kList)) {
    std::vector<std::string> ids;
    std::string rest = m[2].str();
    std::regex split(R"([\s,]+)");
    for (std::sregex_token_iterator t(rest.begin(), rest.end(), split, -1), e; t != e; ++t)
      if (!t->str().empty() && t->str() != id && t->str() != "synclint-" + id) ids.push_back(t->str());
    if (!ids.empty()) {
      std::string joined;
      for (const std::string& s : ids) joined += (joined.empty() ? "" : ", ") + s;
      const std::size_t begin = hash + static_cast<std::size_t>(m.position(2));
      return TextEdit{Range{{line_no, column(begin)}, {line_no, column(begin + m[2].length())}}, joined};
    }
  }
  // The whole comment, with the blanks before it; the whole line when nothing else is on it.
  std::size_t begin = hash;
  while (begin > 0 && (line[begin - 1] == ' ' || line[begin - 1] == '\t')) --begin;
  if (begin == 0) return TextEdit{Range{{line_no, 0}, {line_no + 1, 0}}, ""};
  return TextEdit{Range{{line_no, column(begin)}, {line_no, column(line.size())}}, ""};
}

}  // namespace

std::vector<CodeAction> Server::code_actions(const std::string& uri, Range range) {
  if (dirty_) analyze();
  std::vector<CodeAction> out;
  auto doc_it = documents_.find(uri);
  if (doc_it == documents_.end()) return out;
  const Document& doc = doc_it->second;
  const std::string path = path_of(uri);
  const bool cxx = engine::language_of(path) == Language::Cxx;
  const std::vector<Diagnostic> all = diagnostics_for(path);
  for (const Finding* f : findings_at(path, range)) {
    const Range r = range_of(f->range);
    std::vector<Diagnostic> diagnostics;
    for (const Diagnostic& d : all)
      if (d.code == f->rule_id && d.range == r) diagnostics.push_back(d);
    const auto action = [&](std::string title, std::vector<TextEdit> edits, bool preferred = false) {
      CodeAction a;
      a.title = std::move(title);
      a.kind = "quickfix";
      a.diagnostics = diagnostics;
      a.changes[uri] = std::move(edits);
      a.preferred = preferred;
      out.push_back(std::move(a));
    };
    if (f->rule_id == kUnusedSuppression) {
      const std::string id = f->message.starts_with("unused suppression for ") ? f->message.substr(23) : "";
      if (auto edit = remove_suppression(doc, r.start.line, id, encoding_))
        action(id.empty() ? "Remove the unused suppression" : "Remove " + id + " from the suppression", {*edit}, true);
      continue;
    }
    if (!f->edits.empty()) {
      std::vector<TextEdit> edits;
      for (const synclint::TextEdit& e : f->edits) edits.push_back({range_of(e.range), e.replacement});
      action("Fix " + f->rule_id + ": " + (f->fix.empty() ? f->rule_name : f->fix), std::move(edits), true);
    }
    // The suppression goes at the end of the statement's last line.
    const std::uint32_t last = f->range.end.line > f->range.begin.line && f->range.end.column > 1 ? r.end.line : r.start.line;
    const std::string_view text = doc.line(last);
    const Position eol{last, encode_column(text, static_cast<std::uint32_t>(text.size()), PositionEncoding::Utf32) == 0
                                 ? 0
                                 : doc.position_of(last, encode_column(text, 0xffffffffu, PositionEncoding::Utf32)).character};
    action("Ignore " + f->rule_id + " on this line",
           {TextEdit{Range{eol, eol}, cxx ? "  // NOLINT(synclint-" + f->rule_id + ")"
                                          : "  # synclint: ignore[" + f->rule_id + "]"}});
    const Position top{cxx ? 0 : header_lines(doc), 0};
    action("Ignore " + f->rule_id + " in this file",
           {TextEdit{Range{top, top}, (cxx ? "// synclint: ignore-file[" : "# synclint: ignore-file[") + f->rule_id + "]\n"}});
  }
  return out;
}

}  // namespace synclint::lsp
