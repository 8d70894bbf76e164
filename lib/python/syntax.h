// The syntax tree of one file: tree-sitter's tree copied, right after the parse, into one compact array
// (SyntaxTree) and read through small handles (Node): node kinds as an enum, fields, children, text and
// 1-based code-point positions. Only syntax.cpp and syntax_kept.cpp speak to tree-sitter.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/finding.h"
#include "python/loose_ends.h"

namespace synclint::python {

// The node kinds the front-end looks at; everything else is Other.
enum class K : std::uint8_t {
  Other, Module, Block, Comment, Error,
  FunctionDefinition, DecoratedDefinition, ClassDefinition, Lambda,
  ForStatement, WhileStatement, IfStatement, ElifClause, ElseClause, WithStatement, WithItem, TryStatement,
  ExceptClause, FinallyClause, MatchStatement, ExpressionStatement, ReturnStatement, AssertStatement,
  ContinueStatement, BreakStatement, ImportStatement, ImportFromStatement, FutureImportStatement,
  AliasedImport, DottedName, RelativeImport, ImportPrefix, WildcardImport, GlobalStatement,
  Assignment, AugmentedAssignment, NamedExpression,
  Call, ArgumentList, KeywordArgument, Attribute, Subscript, Slice, Identifier,
  BinaryOperator, ComparisonOperator, BooleanOperator, NotOperator, UnaryOperator, ConditionalExpression,
  ParenthesizedExpression, String, ConcatenatedString, Interpolation, Integer, Float, True, False, None,
  List, Tuple, Set, Dictionary, Pair, ListComprehension, SetComprehension, DictionaryComprehension,
  GeneratorExpression, ForInClause, IfClause, ExpressionList, PatternList, TuplePattern, ListPattern,
  ListSplat, DictionarySplat, ListSplatPattern, Await, Yield,
  Parameters, TypedParameter, DefaultParameter, TypedDefaultParameter, LambdaParameters,
  Decorator, AsPattern, RaiseStatement,
};

class SyntaxTree;

// A node of a SyntaxTree: the tree and the node's index in it (trivially copyable; null when `tree` is).
struct Node {
  const SyntaxTree* tree = nullptr;
  std::uint32_t index = 0;
  friend bool operator==(Node a, Node b) { return a.tree == b.tree && a.index == b.index; }
};

// A row (0-based) and a byte offset in the file: a point of the text, whose column SourceText computes.
struct Point {
  std::uint32_t row = 0;
  std::uint32_t byte = 0;
};

// One file's syntax tree, immutable: every node tree-sitter shows (named and anonymous ones, extras such as
// comments, ERROR and MISSING nodes) in depth-first pre-order: a node's first child is the next node and its
// subtree ends where `end` says. Built from tree-sitter's tree right after the parse; that tree is then freed.
class SyntaxTree {
 public:
  struct Item {
    std::uint32_t start_byte, end_byte;
    std::uint32_t start_row, end_row;
    std::uint32_t end;          // one past the last node of the subtree (the next sibling unless Last)
    std::uint16_t symbol;       // grammar symbol (aliases applied)
    std::uint16_t field;        // field id in the parent, 0 when none
    K kind;
    std::uint8_t flags;
    std::uint16_t named_count;  // named children, kManyChildren when that many or more (then counted)
  };
  enum Flag : std::uint8_t { Named = 1, Missing = 2, IsError = 4, HasError = 8, Extra = 16, Last = 32 };
  static constexpr std::uint16_t kManyChildren = 0xFFFF;

  Node root() const { return Node{this, 0}; }
  const Item& at(std::uint32_t i) const { return items_[i]; }
  std::size_t size() const { return size_; }

 private:
  friend class Parser;
  std::unique_ptr<Item[]> items_;
  std::size_t size_ = 0;
};

// What a Parser::parse_again keeps of a file for the next version: the tree it gave last (of any text the
// file had since, with that text), and tree-sitter's own trees of the last two texts tree-sitter parsed,
// each with its text, the SyntaxTree copied from it and where the larger subtrees are in that copy. A parse
// that cannot be spliced into the last tree (Parser::parse_again) starts from the tree-sitter tree whose
// text is closer: a character typed and deleted again, or an undo, leaves the text of the tree before the
// last, and tree-sitter reuses far less of a tree made by an incremental parse when that parse had to
// re-read the statements after the edit (its nodes made while the parse weighed two readings, such as
// `x, y = batch`, cannot be reused).
class KeptTree {
 public:
  KeptTree() = default;
  ~KeptTree();
  KeptTree(const KeptTree&) = delete;
  KeptTree& operator=(const KeptTree&) = delete;

  // The file's text is `text` again, whose tree (parse(text)'s or parse_again's) the caller kept: the next
  // parse starts from it.
  void came_back(std::shared_ptr<const SyntaxTree> tree, std::string_view text);

  // An edit as tree-sitter takes it (TSInputEdit: bytes, then rows and columns).
  struct Edit {
    std::uint32_t start_byte, old_end_byte, new_end_byte;
    std::uint32_t start_row, start_column, old_end_row, old_end_column, new_end_row, new_end_column;
  };

 private:
  friend class Parser;
  struct State {
    void* tree = nullptr;  // TSTree
    std::shared_ptr<const SyntaxTree> copy;  // of tree, when nodes says where its subtrees are
    std::vector<std::pair<const void*, std::uint32_t>> nodes;  // subtree -> index in copy, by subtree
    std::string text;     // of tree
    // When `synced`: the edits (those of the trees spliced since) from `text` to latest_text_.
    std::vector<Edit> pending;
    bool synced = false;
    void clear();
    // The latest text moved on by `edit`: added to `pending` while synced and not full, else unsynced.
    void follow(const Edit& edit);
  };
  static constexpr std::size_t kMaxPending = 64;
  // The latest text is now `text`, whose tree tree-sitter did not keep: the kept trees add its edit.
  void advance(std::string_view text);
  std::shared_ptr<const SyntaxTree> latest_;  // the last tree given, of latest_text_
  std::string latest_text_;
  State last_;   // tree-sitter's last tree
  State older_;  // and the one before
};

// Thrown by a parse that Parser::set_stop's function ended (not a std::exception: it is no error).
struct ParseStopped {};

// A tree-sitter parser for Python (one per thread).
class Parser {
 public:
  Parser();
  ~Parser();
  Parser(const Parser&) = delete;
  Parser& operator=(const Parser&) = delete;
  // The tree of `text` (the tree of `text` with its loose ends read as spaces, loose_ends.h; loose_last()
  // names them); null, with the reason in `error`, when tree-sitter gives none or the parse passes
  // its budget of processor time (kParseSecondsBase, plus kParseSecondsPerMB per MB of text, on this
  // thread): tree-sitter's error recovery takes time that grows quadratically with some broken input
  // (thousands of broken statements on one line), and one such file must not stall a run. Ordinary
  // code parses at more than 10 MB/s.
  std::unique_ptr<SyntaxTree> parse(std::string_view text, std::string* error = nullptr);
  // It gives up too when tree-sitter's memory for it passes memory_limit_bytes(): kParseMemoryMB, or
  // SYNCLINT_PARSE_MEMORY_MB from the environment (ordinary code needs about 60 bytes per byte of source,
  // a long line of list items 250).
  // parse(text), from what `kept` holds of the file's earlier texts (or nothing). When the edit from the
  // last tree's text is inside top-level statements that begin lines, no longer than the text after them,
  // and the text around them parses without errors, only those statements are parsed (on their own: a statement that begins a line at the
  // top level starts from tree-sitter's initial state) and put in place of the old ones in a copy of the
  // last tree. Otherwise tree-sitter parses incrementally from the kept tree whose text is closer, reusing
  // what the edit (the bytes between the texts' common prefix and suffix) left alone. The result is
  // parse(text)'s, syntax errors included (tree-sitter's error recovery ends as it does from scratch; the
  // unpacking stars parse() patches are parsed from scratch). `kept` then holds the tree of `text`. The
  // nodes of the subtrees tree-sitter reused are copied from the base tree's copy (shifted to their new
  // offsets) instead of read from tree-sitter's tree again.
  std::shared_ptr<const SyntaxTree> parse_again(std::string_view text, KeptTree& kept, std::string* error = nullptr);
  // The loose ends of the text of the last parse or parse_again (read as spaces).
  const std::vector<LooseEnd>& loose_last() const { return loose_last_; }
  // How many nodes the last parse_again took from the kept trees, and whether it spliced.
  std::size_t reused_last() const { return reused_last_; }
  bool spliced_last() const { return spliced_last_; }
  // Subtrees of fewer nodes are not looked for in the kept tree.
  static constexpr std::uint32_t kReuseMinNodes = 2;
  static constexpr double kParseSecondsBase = 2.0;
#ifdef SYNCLINT_SANITIZED
  static constexpr double kParseSecondsPerMB = 5.0;  // sanitizers slow the parse about tenfold
#else
  static constexpr double kParseSecondsPerMB = 1.0;
#endif
  static constexpr std::size_t kParseMemoryMB = 2048;
  static std::size_t memory_limit_bytes();
  // While set (and until set again to null), each parse asks `stop` every few thousand parser operations
  // and, when it answers true, ends and throws ParseStopped; what the kept trees hold is left as it was.
  void set_stop(const std::function<bool()>* stop);

 private:
  // With `old`, an incremental parse (`old` edited to the text); with `keep`, tree-sitter's tree is kept
  // there. With `from` (whose tree `old` is, or a copy of it edited), nodes are taken from its copy; with
  // `nodes`, where the larger subtrees are in the new copy.
  std::unique_ptr<SyntaxTree> parse_once(std::string_view text, std::string* error, void* old = nullptr,
                                         void** keep = nullptr, const KeptTree::State* from = nullptr,
                                         std::vector<std::pair<const void*, std::uint32_t>>* nodes = nullptr);
  std::unique_ptr<SyntaxTree> parse_keeping(std::string_view text, std::string* error, void** keep,
                                            std::vector<std::pair<const void*, std::uint32_t>>* nodes = nullptr);
  // parse_again of the text the parser reads (its loose ends made spaces).
  std::shared_ptr<const SyntaxTree> parse_read(std::string_view text, KeptTree& kept, std::string* error);
  // parse_again's two ways (syntax_splice.cpp, syntax_kept.cpp); parse_spliced gives null when it cannot.
  std::shared_ptr<const SyntaxTree> parse_spliced(std::string_view base_text, const SyntaxTree& base,
                                                  std::string_view text);
  std::shared_ptr<const SyntaxTree> parse_from_kept(std::string_view text, KeptTree& kept, std::string* error);
  // Whether parse() gives `tree`'s text a tree parsed again with patched unpacking stars.
  static bool parses_patched(const SyntaxTree& tree, std::string_view text);
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::size_t reused_last_ = 0;
  bool spliced_last_ = false;
  std::vector<LooseEnd> loose_last_;
};

inline bool null(Node n) { return n.tree == nullptr; }
namespace detail {
// A null node reads as an empty node at the start of the file (as tree-sitter's null node does).
inline constexpr SyntaxTree::Item kNullItem{};
inline const SyntaxTree::Item& item(Node n) { return null(n) ? kNullItem : n.tree->at(n.index); }
}  // namespace detail

// Readers of a node.
inline K kind(Node n) { return detail::item(n).kind; }
inline std::uint32_t start_byte(Node n) { return detail::item(n).start_byte; }
inline std::uint32_t end_byte(Node n) { return detail::item(n).end_byte; }
inline Point start_point(Node n) { return Point{detail::item(n).start_row, detail::item(n).start_byte}; }
inline Point end_point(Node n) { return Point{detail::item(n).end_row, detail::item(n).end_byte}; }
inline bool has_flag(Node n, SyntaxTree::Flag f) { return (detail::item(n).flags & f) != 0; }
inline bool is_named(Node n) { return has_flag(n, SyntaxTree::Named); }
inline bool is_missing(Node n) { return has_flag(n, SyntaxTree::Missing); }
inline bool is_error(Node n) { return has_flag(n, SyntaxTree::IsError); }
inline bool has_error(Node n) { return has_flag(n, SyntaxTree::HasError); }
inline bool is_extra(Node n) { return has_flag(n, SyntaxTree::Extra); }
// The grammar's name of the node's type ("case_clause", "ERROR", "+"), as tree-sitter names it.
std::string_view type(Node n);
inline const void* node_id(Node n) { return null(n) ? nullptr : &detail::item(n); }

// The first child and the next sibling; null when none.
inline Node first_child(Node n) {
  if (null(n) || detail::item(n).end == n.index + 1) return Node{};
  return Node{n.tree, n.index + 1};
}
inline Node next_sibling(Node n) {
  if (null(n) || has_flag(n, SyntaxTree::Last)) return Node{};
  return Node{n.tree, detail::item(n).end};
}
std::uint32_t child_count(Node n);
Node child(Node n, std::uint32_t i);  // null past the end
// Field lookup by name: the first child in field `name`, or null. `name` must be a string literal (its id
// is cached by address).
Node field(Node n, std::string_view name);
// Is `n` in field `name` of its parent? `name` as for field().
bool in_field(Node n, std::string_view name);
std::uint32_t count_named(Node n);
inline std::uint32_t named_count(Node n) {
  const std::uint16_t count = detail::item(n).named_count;
  return count != SyntaxTree::kManyChildren ? count : count_named(n);
}
Node named(Node n, std::uint32_t i);  // null past the end

// The children of a node in order, all of them or the named ones only; no allocation.
template <bool NamedOnly>
class ChildRange {
 public:
  class iterator {
   public:
    using value_type = Node;
    using difference_type = std::ptrdiff_t;
    iterator() = default;
    explicit iterator(Node n) : n_(n) { skip(); }
    Node operator*() const { return n_; }
    iterator& operator++() {
      n_ = next_sibling(n_);
      skip();
      return *this;
    }
    iterator operator++(int) {
      iterator old = *this;
      ++*this;
      return old;
    }
    bool operator==(const iterator& o) const { return n_ == o.n_; }

   private:
    void skip() {
      if constexpr (NamedOnly)
        while (!null(n_) && !is_named(n_)) n_ = next_sibling(n_);
    }
    Node n_{};
  };
  explicit ChildRange(Node n) : node_(n) {}
  iterator begin() const { return iterator(first_child(node_)); }
  iterator end() const { return iterator(); }
  std::size_t size() const { return NamedOnly ? named_count(node_) : child_count(node_); }

 private:
  Node node_;
};
using NamedChildren = ChildRange<true>;
inline NamedChildren named_children(Node n) { return NamedChildren(n); }
inline ChildRange<false> children(Node n) { return ChildRange<false>(n); }

// The nodes of the subtree at `n` in pre-order, `n` first (a walk over consecutive indices).
class PreOrder {
 public:
  explicit PreOrder(Node n) : root_(n) {}
  // The next node, or null at the end.
  Node next() {
    if (null(root_)) return Node{};
    std::uint32_t i = root_.index;
    if (started_) i = skip_ ? detail::item(cur_).end : cur_.index + 1;
    started_ = true;
    skip_ = false;
    if (i >= detail::item(root_).end) return root_ = Node{};
    return cur_ = Node{root_.tree, i};
  }
  // The node next() gave last is left without its children.
  void skip_children() { skip_ = true; }

 private:
  Node root_;
  Node cur_{};
  bool started_ = false;
  bool skip_ = false;
};

// Skips parentheses around an expression.
Node strip_parens(Node n);

// The parsed text of one file with the line index used to turn byte columns into code-point columns.
class SourceText {
 public:
  SourceText(std::string path, const std::string& text);
  const std::string& path() const { return path_; }
  const std::string& text() const { return *text_; }
  std::string_view text(Node n) const;
  // The 1-based line and code-point column of `p`. Each thread keeps the last few columns it computed
  // (per text and row), and a point further along the same line counts on from there: the positions of
  // many findings on one long line, in order, read that line once.
  Position position(Point p) const;
  SourceRange range(Node n) const;
  std::uint32_t line(Node n) const { return start_point(n).row + 1; }
  // The byte where row `row` starts (the end of the text past the last row).
  std::uint32_t line_start(std::uint32_t row) const {
    return row < line_starts_.size() ? line_starts_[row] : static_cast<std::uint32_t>(text_->size());
  }

 private:
  std::string path_;
  const std::string* text_;
  std::vector<std::uint32_t> line_starts_;
  std::uint64_t id_;  // unique in the process: names this text in the threads' kept columns
};

// Makes tree-sitter allocate through mimalloc (no per-block headers, cheaper allocation and freeing than
// malloc). Process-wide, once; done while the program starts, before any parser exists (every block
// tree-sitter frees must come from the same allocator), so calling it again changes nothing.
void use_tree_allocator();

// For a process that analyses again and again (the language server): memory freed by one analysis stays
// with the allocator for the next, instead of going back to the system a few milliseconds later and being
// faulted in again page by page. Resident memory then stays at its peak. Process-wide.
void keep_freed_memory();

}  // namespace synclint::python
