#include "python/syntax.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <malloc.h>
#if SYNCLINT_HAVE_MIMALLOC
#include <mimalloc.h>
#endif
#include <mutex>
#include <unordered_map>

namespace synclint::python {

const TSLanguage* python_language() { return tree_sitter_python(); }

namespace {

struct KindTable {
  std::vector<K> by_symbol;
  KindTable() {
    static const std::unordered_map<std::string_view, K> names = {
        {"module", K::Module}, {"block", K::Block}, {"comment", K::Comment}, {"ERROR", K::Error},
        {"function_definition", K::FunctionDefinition}, {"decorated_definition", K::DecoratedDefinition},
        {"class_definition", K::ClassDefinition}, {"lambda", K::Lambda}, {"for_statement", K::ForStatement},
        {"while_statement", K::WhileStatement}, {"if_statement", K::IfStatement}, {"elif_clause", K::ElifClause},
        {"else_clause", K::ElseClause}, {"with_statement", K::WithStatement}, {"with_item", K::WithItem},
        {"try_statement", K::TryStatement}, {"except_clause", K::ExceptClause},
        {"finally_clause", K::FinallyClause}, {"match_statement", K::MatchStatement},
        {"expression_statement", K::ExpressionStatement}, {"return_statement", K::ReturnStatement},
        {"assert_statement", K::AssertStatement}, {"continue_statement", K::ContinueStatement},
        {"break_statement", K::BreakStatement}, {"import_statement", K::ImportStatement},
        {"import_from_statement", K::ImportFromStatement},
        {"future_import_statement", K::FutureImportStatement}, {"aliased_import", K::AliasedImport},
        {"dotted_name", K::DottedName}, {"relative_import", K::RelativeImport},
        {"import_prefix", K::ImportPrefix}, {"wildcard_import", K::WildcardImport},
        {"global_statement", K::GlobalStatement}, {"assignment", K::Assignment},
        {"augmented_assignment", K::AugmentedAssignment}, {"named_expression", K::NamedExpression},
        {"call", K::Call}, {"argument_list", K::ArgumentList}, {"keyword_argument", K::KeywordArgument},
        {"attribute", K::Attribute}, {"subscript", K::Subscript}, {"slice", K::Slice},
        {"identifier", K::Identifier}, {"binary_operator", K::BinaryOperator},
        {"comparison_operator", K::ComparisonOperator}, {"boolean_operator", K::BooleanOperator},
        {"not_operator", K::NotOperator}, {"unary_operator", K::UnaryOperator},
        {"conditional_expression", K::ConditionalExpression},
        {"parenthesized_expression", K::ParenthesizedExpression}, {"string", K::String},
        {"concatenated_string", K::ConcatenatedString}, {"interpolation", K::Interpolation},
        {"integer", K::Integer}, {"float", K::Float}, {"true", K::True}, {"false", K::False},
        {"none", K::None}, {"list", K::List}, {"tuple", K::Tuple}, {"set", K::Set},
        {"dictionary", K::Dictionary}, {"pair", K::Pair}, {"list_comprehension", K::ListComprehension},
        {"set_comprehension", K::SetComprehension}, {"dictionary_comprehension", K::DictionaryComprehension},
        {"generator_expression", K::GeneratorExpression}, {"for_in_clause", K::ForInClause},
        {"if_clause", K::IfClause}, {"expression_list", K::ExpressionList}, {"pattern_list", K::PatternList},
        {"tuple_pattern", K::TuplePattern}, {"list_pattern", K::ListPattern}, {"list_splat", K::ListSplat},
        {"dictionary_splat", K::DictionarySplat}, {"list_splat_pattern", K::ListSplatPattern},
        {"await", K::Await}, {"yield", K::Yield}, {"parameters", K::Parameters},
        {"typed_parameter", K::TypedParameter}, {"default_parameter", K::DefaultParameter},
        {"typed_default_parameter", K::TypedDefaultParameter}, {"lambda_parameters", K::LambdaParameters},
        {"decorator", K::Decorator}, {"as_pattern", K::AsPattern}, {"raise_statement", K::RaiseStatement},
    };
    const TSLanguage* lang = python_language();
    const std::uint32_t count = ts_language_symbol_count(lang);
    by_symbol.assign(count + 1, K::Other);
    for (std::uint32_t s = 0; s < count; ++s) {
      if (ts_language_symbol_type(lang, static_cast<TSSymbol>(s)) != TSSymbolTypeRegular) continue;
      const char* name = ts_language_symbol_name(lang, static_cast<TSSymbol>(s));
      if (name == nullptr) continue;
      auto it = names.find(name);
      if (it != names.end()) by_symbol[s] = it->second;
    }
  }
};

const KindTable& kinds() {
  static const KindTable table;
  return table;
}

}  // namespace

K kind(TSNode n) {
  if (ts_node_is_null(n)) return K::Other;
  // One symbol lookup: ts_node_is_error(n) is ts_node_symbol(n) == the built-in error symbol.
  constexpr TSSymbol kErrorSymbol = static_cast<TSSymbol>(-1);
  const TSSymbol s = ts_node_symbol(n);
  if (s == kErrorSymbol) return K::Error;
  const auto& t = kinds().by_symbol;
  return s < t.size() ? t[s] : K::Other;
}

namespace {
struct FieldTable {
  std::unordered_map<std::string_view, TSFieldId> ids;
  FieldTable() {
    const TSLanguage* lang = python_language();
    const std::uint32_t count = ts_language_field_count(lang);
    for (std::uint32_t f = 1; f <= count; ++f)
      if (const char* name = ts_language_field_name_for_id(lang, static_cast<TSFieldId>(f)))
        ids.emplace(name, static_cast<TSFieldId>(f));
  }
};
const FieldTable& fields() {
  static const FieldTable table;
  return table;
}
}  // namespace

TSNode field(TSNode n, std::string_view name) {
  if (ts_node_is_null(n)) return TSNode{};
  // Callers pass string literals: remember each literal's id by its address (per thread, no locking).
  struct Slot {
    const char* name = nullptr;
    TSFieldId id = 0;
  };
  thread_local std::array<Slot, 64> cache{};
  Slot& slot = cache[(reinterpret_cast<std::uintptr_t>(name.data()) >> 2) & 63];
  if (slot.name != name.data()) {
    const auto& ids = fields().ids;
    auto it = ids.find(name);
    slot = Slot{name.data(), it == ids.end() ? TSFieldId{0} : it->second};
  }
  return slot.id == 0 ? TSNode{} : ts_node_child_by_field_id(n, slot.id);
}

namespace {
// One cursor per thread, reset for each use: creating a cursor allocates.
struct ThreadCursor {
  TSTreeCursor cursor{};
  bool live = false;
  ~ThreadCursor() {
    if (live) ts_tree_cursor_delete(&cursor);
  }
  TSTreeCursor& at(TSNode n) {
    if (!live) {
      cursor = ts_tree_cursor_new(n);
      live = true;
    } else {
      ts_tree_cursor_reset(&cursor, n);
    }
    return cursor;
  }
};
}  // namespace

NamedChildren::NamedChildren(TSNode n) {
  data_ = inline_.data();
  if (ts_node_is_null(n)) return;
  const std::uint32_t count = ts_node_named_child_count(n);
  if (count == 0) return;
  TSNode* out = inline_.data();
  if (count > kInline) {
    heap_.resize(count);
    out = heap_.data();
    data_ = out;
  }
  if (count <= kDirect) {
    // Few children: direct indexing (each lookup scans from the first child) beats moving a cursor.
    for (std::uint32_t i = 0; i < count; ++i) out[size_++] = ts_node_named_child(n, i);
    return;
  }
  thread_local ThreadCursor tc;
  TSTreeCursor& c = tc.at(n);
  if (ts_tree_cursor_goto_first_child(&c)) {
    do {
      TSNode child = ts_tree_cursor_current_node(&c);
      if (ts_node_is_named(child) && size_ < count) out[size_++] = child;
    } while (size_ < count && ts_tree_cursor_goto_next_sibling(&c));
  }
}

TSNode strip_parens(TSNode n) {
  while (!ts_node_is_null(n) && kind(n) == K::ParenthesizedExpression && named_count(n) == 1) n = named(n, 0);
  return n;
}

SourceText::SourceText(std::string path, const std::string& text) : path_(std::move(path)), text_(&text) {
  line_starts_.push_back(0);
  const char* const begin = text.data();
  const char* const end = begin + text.size();
  for (const char* nl = begin; (nl = static_cast<const char*>(std::memchr(nl, '\n', static_cast<std::size_t>(end - nl))));)
    line_starts_.push_back(static_cast<std::uint32_t>(++nl - begin));
}

std::string_view SourceText::text(TSNode n) const {
  const std::uint32_t b = ts_node_start_byte(n), e = ts_node_end_byte(n);
  if (b >= text_->size() || e <= b) return {};
  return std::string_view(*text_).substr(b, std::min<std::size_t>(e, text_->size()) - b);
}

Position SourceText::position(TSPoint p) const {
  Position pos{p.row + 1, 1};
  if (p.row >= line_starts_.size()) return pos;
  const std::size_t start = line_starts_[p.row];
  const std::size_t end = std::min<std::size_t>(start + p.column, text_->size());
  std::uint32_t col = 1;
  for (std::size_t i = start; i < end; ++i)
    if ((static_cast<unsigned char>((*text_)[i]) & 0xC0) != 0x80) ++col;
  pos.column = col;
  return pos;
}

SourceRange SourceText::range(TSNode n) const {
  return SourceRange{path_, position(ts_node_start_point(n)), position(ts_node_end_point(n))};
}


// ============================================================================ tree allocator
namespace {
// tree-sitter allocates through mimalloc: no per-block header (glibc's malloc adds 8 bytes and rounds to 16,
// about 15% of a tree), thread-local free lists, blocks freed on any thread. Each thread counts the bytes it
// holds, so that the analyzer can budget kept trees by their measured size. Blocks allocated before the
// switch (by malloc) still go back to malloc. Without mimalloc (a build where it is missing), malloc and
// the count.
thread_local std::int64_t t_held = 0;

#if SYNCLINT_HAVE_MIMALLOC
bool ours(const void* p) { return mi_is_in_heap_region(p); }
std::size_t usable(const void* p) { return ours(p) ? mi_usable_size(p) : malloc_usable_size(const_cast<void*>(p)); }
void* raw_malloc(std::size_t size) { return mi_malloc(size); }
void* raw_calloc(std::size_t n, std::size_t size) { return mi_calloc(n, size); }
void raw_free(void* p) {
  if (ours(p)) mi_free(p);
  else std::free(p);
}
void* raw_realloc(void* p, std::size_t size) {
  if (p == nullptr || ours(p)) return mi_realloc(p, size);
  void* q = mi_malloc(size);  // a malloc block grows into a mimalloc one
  if (q != nullptr) {
    std::memcpy(q, p, std::min(size, malloc_usable_size(p)));
    std::free(p);
  }
  return q;
}
#else
std::size_t usable(const void* p) { return malloc_usable_size(const_cast<void*>(p)); }
void* raw_malloc(std::size_t size) { return std::malloc(size); }
void* raw_calloc(std::size_t n, std::size_t size) { return std::calloc(n, size); }
void raw_free(void* p) { std::free(p); }
void* raw_realloc(void* p, std::size_t size) { return std::realloc(p, size); }
#endif

// Out of memory aborts, as tree-sitter's default allocator does.
void* checked(void* p) {
  if (p == nullptr) std::abort();
  t_held += static_cast<std::int64_t>(usable(p));
  return p;
}
void* allocate(std::size_t size) { return checked(raw_malloc(std::max<std::size_t>(size, 1))); }
void* zeroed(std::size_t n, std::size_t size) { return checked(raw_calloc(std::max<std::size_t>(n, 1), std::max<std::size_t>(size, 1))); }
void release(void* p) {
  if (p == nullptr) return;
  t_held -= static_cast<std::int64_t>(usable(p));
  raw_free(p);
}
void* resize(void* p, std::size_t size) {
  if (p != nullptr) t_held -= static_cast<std::int64_t>(usable(p));
  return checked(raw_realloc(p, std::max<std::size_t>(size, 1)));
}
}  // namespace

void use_tree_allocator() {
  static std::once_flag once;
  std::call_once(once, [] { ts_set_allocator(allocate, zeroed, resize, release); });
}

std::int64_t tree_bytes_held_here() { return t_held; }

}  // namespace synclint::python
