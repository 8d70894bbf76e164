// loose_ends: a scan of the text with Python's rules for comments, numbers and string literals (prefixes,
// triple quotes, escapes, f-strings' replacement fields with their own strings and brackets), matching
// brackets and noting the dots that end lines.
#include "python/loose_ends.h"

#include <algorithm>
#include <cstddef>

namespace synclint::python {

namespace {

bool word_char(unsigned char c) {
  return c == '_' || c >= 0x80 || (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z');
}

// Is `w` a string prefix (any case, any order: r, u, b, f, t, as Python 2 and 3 accept them)? Its
// literal is formatted (replacement fields) when it holds an f or a t.
bool string_prefix(std::string_view w, bool& formatted) {
  if (w.empty() || w.size() > 2) return false;
  formatted = false;
  for (char c : w) {
    const char l = static_cast<char>(c | 0x20);
    if (l == 'f' || l == 't') formatted = true;
    else if (l != 'r' && l != 'u' && l != 'b') return false;
  }
  return w.size() == 1 || w[0] != w[1];
}

class Scanner {
 public:
  explicit Scanner(std::string_view text) : s_(text) {}

  std::vector<LooseEnd> run() {
    std::vector<LooseEnd> open;  // the brackets open at this point
    // The dots that end their lines, each with the bracket innermost open there: such a dot is outside
    // the matched brackets when that bracket is never closed (or there is none).
    struct Dot {
      LooseEnd at;
      bool in_bracket;
      std::uint32_t bracket;
    };
    std::vector<Dot> dots;
    bool dot_last = false;  // the line's last token so far is a dot
    auto end_line = [&] {
      if (dot_last) dots.push_back(Dot{dot_, !open.empty(), open.empty() ? 0 : open.back().byte});
      dot_last = false;
    };
    while (i_ < s_.size()) {
      const auto c = static_cast<unsigned char>(s_[i_]);
      if (c == '\n') {
        end_line();
        ++row_, ++i_;
        continue;
      }
      if (c == ' ' || c == '\t' || c == '\f' || c == '\r') {
        ++i_;
        continue;
      }
      if (c == '#') {
        while (i_ < s_.size() && s_[i_] != '\n' && s_[i_] != '\r') ++i_;
        continue;
      }
      dot_last = false;
      if (c == '"' || c == '\'') {
        string(false, 0);
      } else if (c >= '0' && c <= '9') {
        number();
      } else if (c == '.') {
        if (i_ + 1 < s_.size() && s_[i_ + 1] >= '0' && s_[i_ + 1] <= '9') {
          number();
        } else if (s_.substr(i_, 3) == "...") {
          i_ += 3;
        } else {
          dot_ = LooseEnd{static_cast<std::uint32_t>(i_), row_};
          dot_last = true;
          ++i_;
        }
      } else if (word_char(c)) {
        word(0);
      } else if (c == '(' || c == '[' || c == '{') {
        open.push_back(LooseEnd{static_cast<std::uint32_t>(i_), row_});
        ++i_;
      } else if (c == ')' || c == ']' || c == '}') {
        if (!open.empty()) open.pop_back();
        ++i_;
      } else if (c == '\\') {
        i_ += 2;  // a line continuation, or a stray backslash and what follows it
        if (i_ <= s_.size() && s_[i_ - 1] == '\n') ++row_;
      } else {
        ++i_;  // an operator
      }
    }
    end_line();
    // The brackets still open are never closed; the dots outside the others end the list with them.
    std::vector<LooseEnd> out;
    out.reserve(open.size() + dots.size());
    std::size_t k = 0;
    for (const Dot& d : dots) {
      if (d.in_bracket) {  // outside the matched brackets only when that bracket is never closed
        auto it = std::lower_bound(open.begin(), open.end(), d.bracket,
                                   [](const LooseEnd& e, std::uint32_t byte) { return e.byte < byte; });
        if (it == open.end() || it->byte != d.bracket) continue;
      }
      for (; k < open.size() && open[k].byte < d.at.byte; ++k) out.push_back(open[k]);
      out.push_back(d.at);
    }
    out.insert(out.end(), open.begin() + static_cast<std::ptrdiff_t>(k), open.end());
    return out;
  }

 private:
  // A number from its first digit or point: digits, letters, points and underscores, and the sign of an
  // exponent (`1e-5`, not `0x1e-5`).
  void number() {
    const std::size_t start = i_;
    while (i_ < s_.size()) {
      const auto c = static_cast<unsigned char>(s_[i_]);
      const bool sign = (c == '+' || c == '-') && i_ > start && (s_[i_ - 1] | 0x20) == 'e' &&
                        !(i_ - start > 1 && s_[start] == '0' && (s_[start + 1] | 0x20) == 'x');
      if (!(word_char(c) || c == '.' || sign)) break;
      ++i_;
    }
  }

  // A name or keyword from its first letter, or the prefix of the string literal right after it.
  void word(int nesting) {
    const std::size_t start = i_;
    while (i_ < s_.size() && word_char(static_cast<unsigned char>(s_[i_]))) ++i_;
    bool formatted = false;
    if (i_ < s_.size() && (s_[i_] == '"' || s_[i_] == '\'') && string_prefix(s_.substr(start, i_ - start), formatted))
      string(formatted, nesting);
  }

  // Line breaks inside a literal move the row on.
  void step() {
    if (s_[i_] == '\n') ++row_;
    ++i_;
  }
  bool at_triple(char q) const { return s_.substr(i_, 3) == std::string_view(q == '"' ? "\"\"\"" : "'''"); }
  bool at_quotes(char q, bool triple) const { return triple ? at_triple(q) : s_[i_] == q; }

  // A string literal from its opening quote at i_. A literal of one quote ends at the end of its line when
  // left open (Python's error); a triple-quoted one at the end of the text. Formatted literals nest at most
  // kMaxNesting deep (deeper ones are read as plain text, which only moves where a broken file's errors
  // are).
  static constexpr int kMaxNesting = 32;
  void string(bool formatted, int nesting) {
    const char q = s_[i_];
    const bool triple = at_triple(q);
    i_ += triple ? 3 : 1;
    formatted = formatted && nesting < kMaxNesting;
    while (i_ < s_.size()) {
      const char c = s_[i_];
      if (c == '\\') {
        ++i_;
        if (i_ < s_.size() && s_[i_] == '\r' && i_ + 1 < s_.size() && s_[i_ + 1] == '\n') ++i_;  // a CRLF line break
        if (i_ < s_.size()) step();
      } else if (!triple && (c == '\n' || c == '\r')) {
        return;
      } else if (at_quotes(q, triple)) {
        i_ += triple ? 3 : 1;
        return;
      } else if (formatted && c == '{') {
        if (i_ + 1 < s_.size() && s_[i_ + 1] == '{') i_ += 2;
        else if (!field(triple, nesting + 1)) return;
      } else {
        step();
      }
    }
  }

  // A replacement field of a formatted literal from its `{` at i_ to its `}`: an expression with its own
  // brackets and strings, then a format spec after a `:` outside them, which may hold fields itself.
  // False when the literal's line ends first (a literal of one quote is then left open).
  bool field(bool triple, int nesting) {
    ++i_;
    int depth = 0;
    bool spec = false;
    while (i_ < s_.size()) {
      const auto c = static_cast<unsigned char>(s_[i_]);
      if (!triple && (c == '\n' || c == '\r')) return false;
      if (spec) {
        if (c == '{' && nesting < kMaxNesting) {
          if (!field(triple, nesting + 1)) return false;
        } else if (c == '}') {
          ++i_;
          return true;
        } else {
          step();
        }
      } else if (c == '"' || c == '\'') {
        string(false, nesting);
      } else if (word_char(c) && !(c >= '0' && c <= '9')) {
        word(nesting);
      } else if (c == '(' || c == '[' || c == '{') {
        ++depth, ++i_;
      } else if (c == ')' || c == ']') {
        depth -= depth > 0 ? 1 : 0;
        ++i_;
      } else if (c == '}') {
        ++i_;
        if (depth == 0) return true;
        --depth;
      } else if (c == ':' && depth == 0) {
        spec = true;
        ++i_;
      } else if (c == '!' && depth == 0 && i_ + 1 < s_.size() && s_[i_ + 1] != '=') {
        i_ += 2;  // a conversion (`!r`)
      } else {
        step();
      }
    }
    return true;
  }

  std::string_view s_;
  std::size_t i_ = 0;
  std::uint32_t row_ = 0;
  LooseEnd dot_;  // the last dot read
};

}  // namespace

std::vector<LooseEnd> loose_ends(std::string_view text) { return Scanner(text).run(); }

std::string read_as_spaces(std::string_view text, const std::vector<LooseEnd>& ends) {
  std::string out(text);
  for (const LooseEnd& e : ends) out[e.byte] = ' ';
  return out;
}

}  // namespace synclint::python
