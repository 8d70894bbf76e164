// Loose ends: tokens that, half typed, join the lines after them to their own.
//
// Python joins every line after an opening bracket into one logical line until the bracket closes, so a
// bracket left open while typing (`stats.append(`) makes the rest of the file the arguments of that call:
// tree-sitter's error recovery then runs from the bracket to the end of the file, and the statements after
// it lose their findings until the bracket is closed. A line that ends with a `.` (`stats.`, on the way to
// `stats.append`) makes tree-sitter read the next line's first name as the attribute, so that
// `log_loss(loss)` on the next line becomes `stats.log_loss(loss)`. Like ruff's and CPython's parsers,
// which recover at the end of the line, synclint reads each loose end as if it were not there: the parser
// sees a space in its place (the offsets stay those of the text), the statements after it read as they
// will once it is finished, and the loose end is a syntax error at its place.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace synclint::python {

// A loose end: its byte offset (the character there is `(`, `[`, `{` or `.`) and its 0-based row.
struct LooseEnd {
  std::uint32_t byte = 0;
  std::uint32_t row = 0;
  friend bool operator==(const LooseEnd&, const LooseEnd&) = default;
};

// The loose ends of `text`, in file order:
// - the opening brackets that no closing bracket matches. Brackets are matched as Python's tokenizer
//   matches them: outside string literals (f-strings' replacement fields included) and comments, each
//   closing bracket closes the last one still open, whatever its kind (a mismatch is tree-sitter's syntax
//   error to report);
// - each `.` that is the last token of its line (a comment may follow) outside the matched brackets and
//   not followed by a backslash: an attribute still without its name (a number's point, as in `1.`, and
//   `...` are no such dot).
// Valid Python has none.
std::vector<LooseEnd> loose_ends(std::string_view text);

// `text` with each of `ends` made a space.
std::string read_as_spaces(std::string_view text, const std::vector<LooseEnd>& ends);

}  // namespace synclint::python
