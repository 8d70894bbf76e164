#include "python/syntax_errors.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string_view>

namespace synclint::python {
namespace {

// The code point at `s[i]` (UTF-8, already validated) and its length.
char32_t decode(std::string_view s, std::size_t i, std::size_t& len) {
  const auto c = static_cast<unsigned char>(s[i]);
  if (c < 0x80 || i + 1 >= s.size()) return len = 1, c;
  if (c < 0xE0) return len = 2, ((c & 0x1F) << 6) | (s[i + 1] & 0x3F);
  if (c < 0xF0 || i + 2 >= s.size()) return len = 3, ((c & 0x0F) << 12) | ((s[i + 1] & 0x3F) << 6) | (s[i + 2] & 0x3F);
  if (i + 3 >= s.size()) return len = 1, c;
  return len = 4, ((c & 0x07) << 18) | ((s[i + 1] & 0x3F) << 12) | ((s[i + 2] & 0x3F) << 6) | (s[i + 3] & 0x3F);
}

bool invisible(char32_t c) {
  return c < 0x20 || c == 0x7F || (c >= 0x80 && c <= 0xA0) || c == 0xAD || c == 0x1680 || (c >= 0x2000 && c <= 0x200F) ||
         (c >= 0x2028 && c <= 0x202F) || (c >= 0x205F && c <= 0x206F) || c == 0x3000 || c == 0xFEFF;
}

bool word_token(std::string_view t) {  // a name, keyword or number
  if (t.empty()) return false;
  const auto c = static_cast<unsigned char>(t[0]);
  return c == '_' || c >= 0x80 || (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z');
}

bool opens_bracket(std::string_view t) { return t == "(" || t == "[" || t == "{"; }

bool statement_keyword(std::string_view t) {
  for (std::string_view k : {"for", "if", "while", "def", "class", "with", "try", "return", "import", "from", "pass",
                             "break", "continue", "raise", "del", "global", "nonlocal", "assert", "elif", "else",
                             "except", "finally"})
    if (t == k) return true;
  return false;
}

bool compound_keyword(std::string_view t) {
  for (std::string_view k : {"if", "elif", "else", "while", "for", "def", "class", "with", "try", "except", "finally"})
    if (t == k) return true;
  return false;
}

std::string quoted(std::string_view t) {
  if (auto nl = t.find_first_of("\r\n"); nl != std::string_view::npos) t = t.substr(0, nl);
  std::string v = visible(t.size() > 30 ? t.substr(0, 30) : t);
  return "'" + v + (t.size() > 30 ? "...'" : "'");
}

// Where the parse broke inside an error node, and what to say.
FileError describe(Node n, const SourceText& src) {
  FileError e;
  e.path = src.path();
  e.fatal = true;
  e.position = src.position(start_point(n));
  if (is_missing(n)) {
    e.message = "syntax error: missing '" + std::string(type(n)) + "'";
    return e;
  }
  std::vector<Node> kids;
  for (Node c : children(n)) kids.push_back(c);
  // A block statement whose first line lacks its colon.
  if (kids.size() >= 2 && compound_keyword(src.text(kids[0]))) {
    const std::uint32_t row = start_point(kids[0]).row;
    Node last = kids[0];
    bool colon = false;
    for (Node c : kids) {
      if (start_point(c).row != row) break;
      colon = colon || src.text(c) == ":";
      last = c;
    }
    if (!colon && !is_error(last)) {
      e.position = src.position(end_point(last));
      e.message = "syntax error: expected ':'";
      return e;
    }
  }
  // A word right after a word before the error node (`print(a b c)`): the error node's first token.
  const std::string& text = src.text();
  std::size_t before = start_byte(n);
  while (before > 0 && (text[before - 1] == ' ' || text[before - 1] == '\t')) --before;
  if (!kids.empty() && before > 0 && before < start_byte(n) && word_token(src.text(kids[0])) &&
      (word_token(std::string_view(&text[before - 1], 1)) || text[before - 1] == ')' || text[before - 1] == ']')) {
    e.message = "syntax error: unexpected " + quoted(src.text(kids[0]));
    return e;
  }
  // Two words in a row, or a statement keyword right after an opening bracket: the second is unexpected.
  for (std::size_t k = 1; k < kids.size(); ++k) {
    const std::string_view prev = src.text(kids[k - 1]), cur = src.text(kids[k]);
    const bool prev_operand = word_token(prev) || prev == ")" || prev == "]" || prev == "}";
    if ((prev_operand && word_token(cur) && end_point(kids[k - 1]).row == start_point(kids[k]).row) ||
        (opens_bracket(prev) && statement_keyword(cur))) {
      e.position = src.position(start_point(kids[k]));
      e.message = "syntax error: unexpected " + quoted(cur);
      return e;
    }
  }
  const std::string_view t = src.text(n);
  std::size_t len = 0;
  if (!t.empty() && invisible(decode(t, 0, len)) && len == t.size())
    e.message = "syntax error: invalid character " + visible(t) + " (it prints as a space or not at all)";
  else
    e.message = t.empty() ? "syntax error: invalid syntax" : "syntax error: unexpected " + quoted(t);
  return e;
}

}  // namespace

std::string visible(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size();) {
    std::size_t len = 1;
    const char32_t c = decode(text, i, len);
    if (invisible(c) && c != '\t') {
      char buf[16];
      std::snprintf(buf, sizeof buf, "U+%04X", static_cast<unsigned>(c));
      out += buf;
    } else {
      out.append(text.substr(i, len));
    }
    i += len;
  }
  return out;
}

std::vector<FileError> syntax_errors(const SyntaxTree& tree, const SourceText& src, std::size_t limit,
                                     const std::vector<LooseEnd>& ends) {
  std::vector<FileError> errors;
  std::size_t next_end = 0;  // the loose ends before the next error of the tree come first
  auto add_ends = [&](std::uint32_t before) {
    for (; next_end < ends.size() && ends[next_end].byte < before && errors.size() < limit; ++next_end) {
      const LooseEnd& end = ends[next_end];
      if (next_end > 0 && ends[next_end - 1].row == end.row) continue;  // one error per line
      FileError e;
      e.path = src.path();
      e.fatal = true;
      e.position = src.position(Point{end.row, end.byte});
      const char c = src.text()[end.byte];
      e.message = c == '.' ? std::string("syntax error: expected a name after '.'")
                           : std::string("syntax error: '") + c + "' was never closed";
      errors.push_back(std::move(e));
    }
  };
  auto loose_end_on_row = [&](std::uint32_t row) {
    auto it = std::lower_bound(ends.begin(), ends.end(), row, [](const LooseEnd& e, std::uint32_t r) { return e.row < r; });
    return it != ends.end() && it->row == row;
  };
  std::uint32_t covered = 0;  // errors inside a reported error's span are the same error
  for (std::uint32_t i = 0; i < tree.size() && errors.size() < limit; ++i) {
    const Node n{&tree, i};
    if (!is_error(n) && !is_missing(n)) continue;
    if (i > 0 && start_byte(n) < covered) continue;
    if (loose_end_on_row(start_point(n).row)) continue;
    add_ends(start_byte(n));
    if (errors.size() >= limit) break;
    FileError e = describe(n, src);
    if (!errors.empty() && errors.back().position == e.position) continue;
    covered = std::max(covered, end_byte(n));
    errors.push_back(std::move(e));
  }
  add_ends(UINT32_MAX);
  return errors;
}

}  // namespace synclint::python
