// Parser::parse_spliced: an edit's top-level statements parsed on their own and put in place of the old ones
// in a copy of the last tree (syntax.h, Parser::parse_again).
//
// Why the pieces agree with a parse of the whole text: in a tree without errors, a statement that begins a
// line at the top level starts where tree-sitter-python's parser and scanner are in their initial state
// (the module's list of statements, no indentation, no open bracket or string). What it parses from there,
// up to the next such statement, depends on that text only, as long as the piece ends cleanly: a piece
// parsed on its own without errors cannot end inside a bracket, a string, a block header or a decorator, a
// piece that ends with a backslash is refused, and the statement after it cannot continue it (`else`,
// `except` or an indented line could not have been a top-level statement of the last tree).
#include <algorithm>
#include <cstdint>
#include <vector>

#include "python/syntax.h"
#include "python/text_change.h"

namespace synclint::python {

namespace {
constexpr std::uint8_t kBroken = SyntaxTree::IsError | SyntaxTree::HasError | SyntaxTree::Missing;

// A line begins at `at` (a line break ends the byte before it).
bool begins_line(std::string_view text, std::size_t at) {
  return at == 0 || text[at - 1] == '\n' || text[at - 1] == '\r';
}

// The scanner decides how a block ends by the next line's indentation and by whether a string starts it; at
// the end of a piece it sees the end of the text instead. A piece must not start with an indented line (it
// would continue the block before it, see starts_cleanly) nor sit before a line that starts with a quote.
bool unsafe_first(char c) {
  return c == ' ' || c == '\t' || c == '\f' || c == '\r' || c == '\n' || c == '\\' || c == '"' || c == '\'' ||
         c == '`';
}

// The first line of `text` from `start` (a line start) that is not blank or a comment begins at column 0
// with a safe character, and the comments before it are at column 0 too: the scanner looks through blank
// lines and comments for the indentation that ends or continues the block before them.
bool starts_cleanly(std::string_view text, std::size_t start) {
  std::size_t i = start;
  while (i < text.size()) {
    std::size_t j = i;
    while (j < text.size() && (text[j] == ' ' || text[j] == '\t' || text[j] == '\f')) ++j;
    if (j == text.size()) return true;
    if (text[j] == '\n' || text[j] == '\r') {
      i = j + 1;
    } else if (text[j] == '#' && j == i) {
      while (j < text.size() && text[j] != '\n' && text[j] != '\r') ++j;
      i = j + 1;
    } else {
      return j == i && !unsafe_first(text[j]);
    }
  }
  return true;
}

// The piece's last line ends with a backslash: the line after the piece would continue it.
bool continued(std::string_view piece) {
  std::size_t at = piece.size();
  while (at > 0 && (piece[at - 1] == '\n' || piece[at - 1] == '\r') && piece.size() - at < 2) --at;
  return at > 0 && at < piece.size() && piece[at - 1] == '\\';
}

std::uint32_t lines_in(std::string_view text) {
  return static_cast<std::uint32_t>(std::count(text.begin(), text.end(), '\n'));
}
}  // namespace

std::shared_ptr<const SyntaxTree> Parser::parse_spliced(std::string_view base_text, const SyntaxTree& base,
                                                        std::string_view text) {
  // A tree with errors may have left the scanner in a state other than the initial one at a top-level
  // statement (after an error, a function's body can even be read as statements of the module).
  if (base.size() == 0 || (base.at(0).flags & kBroken) || base.at(0).end != base.size()) return nullptr;
  const TextChange change = text_change(base_text, text);

  // The top-level statements of the last tree that are not comments and begin a line: where a piece may
  // start, and where the kept statements after it may start.
  struct Top {
    std::uint32_t index, start;
    bool boundary;
  };
  std::vector<Top> top;
  for (std::uint32_t c = 1; c < base.size(); c = base.at(c).end) {
    const SyntaxTree::Item& item = base.at(c);
    if (item.end <= c || item.end > base.size() || item.start_byte >= base_text.size()) return nullptr;
    top.push_back(Top{c, item.start_byte,
                      !(item.flags & SyntaxTree::Extra) && begins_line(base_text, item.start_byte)});
  }
  // The piece: statements [first, last) of the last tree (first 0: from the start of the text; last
  // top.size(): to its end).
  std::size_t first = 0;
  for (std::size_t i = 0; i < top.size() && top[i].start <= change.start; ++i)
    if (top[i].boundary) first = i;
  std::size_t last = top.size();
  for (std::size_t i = first + 1; i < top.size(); ++i)
    if (top[i].boundary && top[i].start > change.old_end) {
      last = i;
      break;
    }
  if (first == 0 && last == top.size()) return nullptr;  // the whole text: tree-sitter's own reuse does better

  const std::size_t start = first == 0 ? 0 : top[first].start;
  const std::int64_t shift = static_cast<std::int64_t>(text.size()) - static_cast<std::int64_t>(base_text.size());
  const std::size_t end = last == top.size() ? text.size() : static_cast<std::size_t>(top[last].start + shift);
  // tree-sitter's incremental parse reads at most from the edit to the end of the text again, often far less:
  // a piece longer than the text after it would cost more than that (a function that ends the file).
  if (end - start > text.size() - end) return nullptr;
  if ((start > 0 && !starts_cleanly(text.substr(0, end), start)) ||
      (end < text.size() && (unsafe_first(text[end]) || continued(text.substr(start, end - start)))))
    return nullptr;
  std::unique_ptr<SyntaxTree> piece = parse_once(text.substr(start, end - start), nullptr);
  if (!piece || piece->size() == 0 || (piece->at(0).flags & kBroken)) return nullptr;

  // The new tree: the root, the statements before the piece as they were, the piece's statements moved to
  // where the piece starts, the statements after it moved by the edit.
  const std::uint32_t before_end = first == 0 ? 1 : top[first].index;  // items [1, before_end) stay
  const std::uint32_t after = last == top.size() ? static_cast<std::uint32_t>(base.size()) : top[last].index;
  const std::uint32_t piece_items = static_cast<std::uint32_t>(piece->size()) - 1;
  const std::uint32_t count = before_end + piece_items + (static_cast<std::uint32_t>(base.size()) - after);
  const std::uint32_t start_row = first == 0 ? 0 : base.at(top[first].index).start_row;
  const std::int64_t row_shift = static_cast<std::int64_t>(lines_in(text.substr(change.start, change.new_end - change.start))) -
                                 static_cast<std::int64_t>(lines_in(base_text.substr(change.start, change.old_end - change.start)));
  auto tree = std::make_shared<SyntaxTree>();
  tree->items_.reset(new SyntaxTree::Item[count]);
  tree->size_ = count;
  SyntaxTree::Item* out = tree->items_.get();
  std::copy(&base.at(0), &base.at(0) + before_end, out);
  for (std::uint32_t j = 1; j <= piece_items; ++j) {
    SyntaxTree::Item item = piece->at(j);
    item.start_byte += static_cast<std::uint32_t>(start);
    item.end_byte += static_cast<std::uint32_t>(start);
    item.start_row += start_row;
    item.end_row += start_row;
    item.end += before_end - 1;
    out[before_end + j - 1] = item;
  }
  const std::int64_t index_shift = static_cast<std::int64_t>(before_end + piece_items) - after;
  for (std::uint32_t i = after; i < base.size(); ++i) {
    SyntaxTree::Item item = base.at(i);
    item.start_byte = static_cast<std::uint32_t>(item.start_byte + shift);
    item.end_byte = static_cast<std::uint32_t>(item.end_byte + shift);
    item.start_row = static_cast<std::uint32_t>(item.start_row + row_shift);
    item.end_row = static_cast<std::uint32_t>(item.end_row + row_shift);
    item.end = static_cast<std::uint32_t>(item.end + index_shift);
    out[i + index_shift] = item;
  }

  // The root: where the text's first and last statements put it; its named children counted again; the
  // last child marked so.
  SyntaxTree::Item& root = out[0];
  const SyntaxTree::Item& piece_root = piece->at(0);
  if (first == 0) {
    root.start_byte = piece_root.start_byte;
    root.start_row = piece_root.start_row;
  }
  if (last == top.size()) {
    root.end_byte = piece_root.end_byte + static_cast<std::uint32_t>(start);
    root.end_row = piece_root.end_row + start_row;
  } else {
    root.end_byte = static_cast<std::uint32_t>(base.at(0).end_byte + shift);
    root.end_row = static_cast<std::uint32_t>(base.at(0).end_row + row_shift);
  }
  root.end = count;
  std::uint32_t named = 0, last_child = 0;
  for (std::uint32_t c = 1; c < count; c = out[c].end) {
    named += (out[c].flags & SyntaxTree::Named) ? 1 : 0;
    out[c].flags = static_cast<std::uint8_t>(out[c].flags & ~SyntaxTree::Last);
    last_child = c;
  }
  if (last_child) out[last_child].flags |= SyntaxTree::Last;
  root.named_count = static_cast<std::uint16_t>(std::min<std::uint32_t>(named, SyntaxTree::kManyChildren));
  reused_last_ = before_end - 1 + (base.size() - after);
  return tree;
}

}  // namespace synclint::python
