// Thin helpers over the tree-sitter C API: node kinds as an enum, fields, text and 1-based code-point
// positions. Everything else in the front-end reads the tree through these.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <tree_sitter/api.h>

#include "core/finding.h"

extern "C" const TSLanguage* tree_sitter_python(void);

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

K kind(TSNode n);
inline bool null(TSNode n) { return ts_node_is_null(n); }
// Field lookup by name; `name` must be a string literal (its id is cached by address).
TSNode field(TSNode n, std::string_view name);
inline std::uint32_t named_count(TSNode n) { return ts_node_named_child_count(n); }
inline TSNode named(TSNode n, std::uint32_t i) { return ts_node_named_child(n, i); }
// The named children of `n`, in order (one cursor pass: O(children), where named(n, i) in a loop is not).
// Held inline up to kInline children (no allocation on the walks' hot paths); not copyable, for range-for.
class NamedChildren {
 public:
  explicit NamedChildren(TSNode n);
  NamedChildren(const NamedChildren&) = delete;
  NamedChildren& operator=(const NamedChildren&) = delete;
  const TSNode* begin() const { return data_; }
  const TSNode* end() const { return data_ + size_; }
  std::size_t size() const { return size_; }

 private:
  static constexpr std::size_t kInline = 8;
  static constexpr std::uint32_t kDirect = 4;
  std::array<TSNode, kInline> inline_;
  std::vector<TSNode> heap_;
  const TSNode* data_ = nullptr;
  std::size_t size_ = 0;
};
inline NamedChildren named_children(TSNode n) { return NamedChildren(n); }
// Skips parentheses around an expression.
TSNode strip_parens(TSNode n);
inline const void* node_id(TSNode n) { return n.id; }

// The parsed text of one file with the line index used to turn byte columns into code-point columns.
class SourceText {
 public:
  SourceText(std::string path, const std::string& text);
  const std::string& path() const { return path_; }
  const std::string& text() const { return *text_; }
  std::string_view text(TSNode n) const;
  Position position(TSPoint p) const;
  SourceRange range(TSNode n) const;
  std::uint32_t line(TSNode n) const { return ts_node_start_point(n).row + 1; }

 private:
  std::string path_;
  const std::string* text_;
  std::vector<std::uint32_t> line_starts_;
};

// The Python language handle (a process-wide constant).
const TSLanguage* python_language();

// Makes tree-sitter allocate through mimalloc (no per-block headers: less memory per tree, cheaper
// allocation and freeing than malloc) and count what each thread holds. Process-wide, once; safe while trees
// made with malloc are alive (their blocks still go back to malloc).
void use_tree_allocator();
// Bytes tree-sitter allocated minus bytes it freed on this thread since it started, once use_tree_allocator()
// ran: around a parse, the size of the new tree.
std::int64_t tree_bytes_held_here();

}  // namespace synclint::python
