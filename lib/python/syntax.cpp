#include "python/syntax.h"

#include <tree_sitter/api.h>

#include <cstddef>
#include <new>
#include <type_traits>

#include "python/syntax_copy.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdlib>
#include <cstring>
#if SYNCLINT_HAVE_MIMALLOC
#include <mimalloc.h>
#else
#include <malloc.h>
#endif
#include <mutex>
#include <string>
#include <cstdio>
#include <ctime>
#include <unordered_map>

extern "C" const TSLanguage* tree_sitter_python(void);

namespace synclint::python {

namespace {
const TSLanguage* python_language() { return tree_sitter_python(); }
}  // namespace

namespace {

struct KindTable {
  std::vector<std::uint8_t> codes;  // the K of each symbol
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
    codes.assign(count + 1, static_cast<std::uint8_t>(K::Other));
    for (std::uint32_t s = 0; s < count; ++s) {
      if (ts_language_symbol_type(lang, static_cast<TSSymbol>(s)) != TSSymbolTypeRegular) continue;
      const char* name = ts_language_symbol_name(lang, static_cast<TSSymbol>(s));
      if (name == nullptr) continue;
      auto it = names.find(name);
      if (it != names.end()) codes[s] = static_cast<std::uint8_t>(it->second);
    }
  }
};

const KindTable& kinds() {
  static const KindTable table;
  return table;
}

}  // namespace

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

namespace {
// Callers pass string literals: each literal's field id is remembered by its address (per thread, no locking).
TSFieldId field_id(std::string_view name) {
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
  return slot.id;
}
}  // namespace

Node field(Node n, std::string_view name) {
  if (null(n)) return Node{};
  const TSFieldId id = field_id(name);
  if (id == 0) return Node{};
  // The first child with that field, as ts_node_child_by_field_id finds it.
  for (Node c : children(n))
    if (detail::item(c).field == id) return c;
  return Node{};
}

bool in_field(Node n, std::string_view name) {
  const TSFieldId id = field_id(name);
  return !null(n) && id != 0 && detail::item(n).field == id;
}

std::string_view type(Node n) {
  const char* name = ts_language_symbol_name(python_language(), detail::item(n).symbol);
  return name == nullptr ? std::string_view() : std::string_view(name);
}

std::uint32_t child_count(Node n) {
  std::uint32_t counted = 0;
  for (Node c = first_child(n); !null(c); c = next_sibling(c)) ++counted;
  return counted;
}

std::uint32_t count_named(Node n) {
  std::uint32_t counted = 0;
  for (Node c = first_child(n); !null(c); c = next_sibling(c)) counted += is_named(c) ? 1 : 0;
  return counted;
}

Node child(Node n, std::uint32_t i) {
  Node c = first_child(n);
  for (; !null(c) && i > 0; --i) c = next_sibling(c);
  return c;
}

Node named(Node n, std::uint32_t i) {
  for (Node c : named_children(n))
    if (i-- == 0) return c;
  return Node{};
}

Node strip_parens(Node n) {
  while (!null(n) && kind(n) == K::ParenthesizedExpression && named_count(n) == 1) n = named(n, 0);
  return n;
}

// ============================================================================ parser
// The copy (syntax_copy.c) writes SynclintCopyItem: the same layout as SyntaxTree::Item.
static_assert(sizeof(SyntaxTree::Item) == 28, "a node of the compact tree takes 28 bytes");
static_assert(sizeof(SyntaxTree::Item) == sizeof(SynclintCopyItem));
static_assert(std::is_trivially_copyable_v<SyntaxTree::Item> && std::is_standard_layout_v<SyntaxTree::Item>);
#define SYNCLINT_SAME_MEMBER(m) static_assert(offsetof(SyntaxTree::Item, m) == offsetof(SynclintCopyItem, m))
SYNCLINT_SAME_MEMBER(start_byte);
SYNCLINT_SAME_MEMBER(end_byte);
SYNCLINT_SAME_MEMBER(start_row);
SYNCLINT_SAME_MEMBER(end_row);
SYNCLINT_SAME_MEMBER(end);
SYNCLINT_SAME_MEMBER(named_count);
SYNCLINT_SAME_MEMBER(symbol);
SYNCLINT_SAME_MEMBER(field);
SYNCLINT_SAME_MEMBER(kind);
SYNCLINT_SAME_MEMBER(flags);
#undef SYNCLINT_SAME_MEMBER
constexpr bool same_flag(SyntaxTree::Flag ours, int theirs) { return static_cast<int>(ours) == theirs; }
static_assert(same_flag(SyntaxTree::Named, SYNCLINT_NAMED) && same_flag(SyntaxTree::Missing, SYNCLINT_MISSING) &&
              same_flag(SyntaxTree::IsError, SYNCLINT_IS_ERROR) && same_flag(SyntaxTree::HasError, SYNCLINT_HAS_ERROR) &&
              same_flag(SyntaxTree::Extra, SYNCLINT_EXTRA) && same_flag(SyntaxTree::Last, SYNCLINT_LAST) &&
              SyntaxTree::kManyChildren == SYNCLINT_MANY_CHILDREN);

namespace {
// Bytes of tree-sitter's blocks allocated on this thread less those freed on it: the memory a parse holds.
thread_local std::int64_t tree_bytes = 0;
}  // namespace

std::size_t Parser::memory_limit_bytes() {
  static const std::size_t limit = [] {
    const char* text = std::getenv("SYNCLINT_PARSE_MEMORY_MB");
    const long long mb = text != nullptr ? std::atoll(text) : 0;
    return static_cast<std::size_t>(mb > 0 ? mb : kParseMemoryMB) << 20;
  }();
  return limit;
}

struct Parser::Impl {
  TSParser* parser = nullptr;
  std::int64_t deadline_ns = 0;  // this thread's processor time at which the parse gives up
  std::int64_t bytes_limit = 0;  // tree_bytes at which it gives up
  bool over_budget = false;
  bool over_memory = false;
  const std::function<bool()>* stop = nullptr;  // Parser::set_stop
  bool stopped = false;
  unsigned calls = 0;  // progress callbacks since the clock was last read
  ~Impl() {
    if (parser) ts_parser_delete(parser);
  }
};

Parser::Parser() : impl_(std::make_unique<Impl>()) {
  impl_->parser = ts_parser_new();
  ts_parser_set_language(impl_->parser, python_language());
}

Parser::~Parser() = default;

void Parser::set_stop(const std::function<bool()>* stop) { impl_->stop = stop; }

namespace {
std::int64_t thread_cpu_ns() {
  timespec ts{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

struct StringInput {
  std::string_view text;
  static const char* read(void* payload, std::uint32_t byte, TSPoint, std::uint32_t* bytes_read) {
    const std::string_view t = static_cast<StringInput*>(payload)->text;
    if (byte >= t.size()) {
      *bytes_read = 0;
      return "";
    }
    *bytes_read = static_cast<std::uint32_t>(t.size() - byte);
    return t.data() + byte;
  }
};
}  // namespace

namespace {
using NodeIndex = std::vector<std::pair<const void*, std::uint32_t>>;

// The copy's view of the kept tree's index and of the one it makes.
struct CopyIndex {
  const NodeIndex* from = nullptr;
  NodeIndex* nodes = nullptr;
  static std::uint32_t find(void* ctx, const void* subtree) {
    const NodeIndex& from = *static_cast<CopyIndex*>(ctx)->from;
    auto it = std::lower_bound(from.begin(), from.end(), subtree,
                               [](const auto& entry, const void* s) { return std::less<>()(entry.first, s); });
    return it != from.end() && it->first == subtree ? it->second : UINT32_MAX;
  }
  static void record(void* ctx, const void* subtree, std::uint32_t index) {
    if (NodeIndex* nodes = static_cast<CopyIndex*>(ctx)->nodes) nodes->emplace_back(subtree, index);
  }
  struct Move {
    std::uint32_t old_index, index, below;
  };
  std::vector<Move> moves;  // subtrees taken from the last copy
  static void moved(void* ctx, std::uint32_t old_index, std::uint32_t index, std::uint32_t below) {
    static_cast<CopyIndex*>(ctx)->moves.push_back(Move{old_index, index, below});
  }
  // The subtrees under those taken from the last copy are where the last copy's index put them, shifted
  // (tree-sitter may reuse them on their own after the next edit).
  void add_moved() {
    if (!nodes || !from || moves.empty()) return;
    std::sort(moves.begin(), moves.end(), [](const Move& a, const Move& b) { return a.old_index < b.old_index; });
    for (const auto& [subtree, old_index] : *from) {
      auto it = std::upper_bound(moves.begin(), moves.end(), old_index,
                                 [](std::uint32_t i, const Move& m) { return i < m.old_index; });
      if (it == moves.begin()) continue;
      --it;
      if (old_index > it->old_index && old_index <= it->old_index + it->below)
        nodes->emplace_back(subtree, old_index - it->old_index + it->index);
    }
  }
};
}  // namespace

std::unique_ptr<SyntaxTree> Parser::parse_once(std::string_view text, std::string* error, void* old, void** keep,
                                               const KeptTree::State* from, NodeIndex* nodes) {
  if (text.size() > UINT32_MAX - 1) {
    if (error) *error = "file too large for the parser";
    return nullptr;
  }
  StringInput input{text};
  const double seconds = kParseSecondsBase + kParseSecondsPerMB * static_cast<double>(text.size()) / 1e6;
  impl_->deadline_ns = thread_cpu_ns() + static_cast<std::int64_t>(seconds * 1e9);
  impl_->over_budget = false;
  impl_->calls = 0;
  impl_->over_memory = false;
  impl_->stopped = false;
  impl_->bytes_limit = tree_bytes + static_cast<std::int64_t>(memory_limit_bytes());
  TSParseOptions options{};
  options.payload = impl_.get();
  // Called by tree-sitter about every 100 parser operations; the thread's clock is a system call, so it
  // is read on every 32nd call only (a few thousand operations, well under a millisecond). The memory
  // count is a thread-local integer, checked every time.
  options.progress_callback = [](TSParseState* state) {
    auto* self = static_cast<Impl*>(state->payload);
    if (++self->calls % 32 == 0) {
      self->over_budget = self->over_budget || thread_cpu_ns() > self->deadline_ns;
      self->stopped = self->stopped || (self->stop && *self->stop && (*self->stop)());
    }
    self->over_memory = self->over_memory || tree_bytes > self->bytes_limit;
    return self->over_budget || self->over_memory || self->stopped;
  };
  TSTree* ts_tree = ts_parser_parse_with_options(
      impl_->parser, static_cast<TSTree*>(old), TSInput{&input, &StringInput::read, TSInputEncodingUTF8, nullptr},
      options);
  if (ts_tree == nullptr) {
    ts_parser_reset(impl_->parser);
    if (impl_->stopped) throw ParseStopped{};
    if (error) {
      char limit[32];
      std::snprintf(limit, sizeof limit, "%.1f", seconds);
      *error = impl_->over_memory
                   ? "the parser gave up when its syntax tree passed " + std::to_string(memory_limit_bytes() >> 20) +
                         " MB (the limit for one file, SYNCLINT_PARSE_MEMORY_MB; ordinary code takes about 60 bytes "
                         "per byte of source, very long lines more); the file is skipped"
               : impl_->over_budget
                   ? std::string("the parser gave up after ") + limit +
                         " s of processor time (tree-sitter's error recovery grows quadratically on some broken "
                         "input, such as thousands of broken statements on one line); the file is skipped"
                   : "could not parse the file";
    }
    return nullptr;
  }
  auto tree = std::make_unique<SyntaxTree>();
  const auto& kind_of = kinds().codes;
  // tree-sitter counts the nodes it shows; the copy says how many it wrote, in case that differs.
  std::uint32_t room = ts_node_descendant_count(ts_tree_root_node(ts_tree));
  CopyIndex index;
  SynclintCopyReuse reuse{};
  const bool reusing = old && from && from->copy;
  if (reusing) {
    index.from = &from->nodes;
    reuse.old_items = reinterpret_cast<const SynclintCopyItem*>(from->copy->items_.get());
    reuse.old_count = static_cast<std::uint32_t>(from->copy->size());
  }
  index.nodes = nodes;
  reuse.find = &CopyIndex::find;
  reuse.record = &CopyIndex::record;
  reuse.moved = &CopyIndex::moved;
  reuse.ctx = &index;
  reuse.min_items = kReuseMinNodes;
  for (;;) {
    tree->items_.reset(new SyntaxTree::Item[room]);
    if (nodes) nodes->clear();
    index.moves.clear();
    reuse.reused = 0;
    const std::uint32_t count = synclint_copy_tree(
        ts_tree, reinterpret_cast<SynclintCopyItem*>(tree->items_.get()), room, kind_of.data(),
        static_cast<std::uint32_t>(kind_of.size()), static_cast<std::uint8_t>(K::Error),
        reusing || nodes ? &reuse : nullptr);
    if (count == UINT32_MAX) throw std::bad_alloc();
    if (count <= room) {
      tree->size_ = count;
      break;
    }
    room = count;
  }
  reused_last_ = reuse.reused;
  index.add_moved();
  if (nodes) std::sort(nodes->begin(), nodes->end(), [](const auto& a, const auto& b) { return std::less<>()(a.first, b.first); });
  if (keep) *keep = ts_tree;
  else ts_tree_delete(ts_tree);
  return tree;
}

namespace {
std::size_t error_count(const SyntaxTree& tree) {
  std::size_t count = 0;
  for (std::uint32_t i = 0; i < tree.size(); ++i) count += (tree.at(i).flags & SyntaxTree::IsError) ? 1 : 0;
  return count;
}

// The unpacking stars that tree-sitter-python rejects although Python accepts them: `*` before a bracket or
// parenthesis in a tuple (`x = a, *[b]`, `x = a, *()`, `host, *rest = endpoint, *[]`), found in the spans
// of the error nodes. Returns their byte offsets.
std::vector<std::size_t> rejected_unpacking_stars(const SyntaxTree& tree, std::string_view text) {
  auto blank = [](char c) { return c == ' ' || c == '\t'; };
  std::vector<std::size_t> stars;
  std::size_t scanned = 0;  // error spans nest: each byte is looked at once
  for (std::uint32_t i = 0; i < tree.size(); ++i) {
    const SyntaxTree::Item& item = tree.at(i);
    if (!(item.flags & SyntaxTree::IsError)) continue;
    const std::size_t end = std::min<std::size_t>(item.end_byte, text.size());
    std::size_t start = std::min<std::size_t>(item.start_byte, end);  // from the star before the span, if any
    while (start > 0 && blank(text[start - 1])) --start;
    if (start > 0 && text[start - 1] == '*') --start;
    for (std::size_t star = std::max(start, scanned); star < end; ++star) {
      if (text[star] != '*' || (star + 1 < text.size() && text[star + 1] == '*')) continue;
      std::size_t before = star, next = star + 1;
      while (before > 0 && blank(text[before - 1])) --before;
      while (next < text.size() && blank(text[next])) ++next;
      // Unary: after `=`, `,` or an opening bracket (`a *[b]` is a product); then a bracket.
      const bool unary = before > 0 && std::string_view(",=([{").find(text[before - 1]) != std::string_view::npos &&
                         (before < 2 || text[before - 2] != '*');
      if (unary && next < text.size() && (text[next] == '[' || text[next] == '(')) stars.push_back(star);
    }
    scanned = std::max(scanned, end);
  }
  return stars;
}
}  // namespace

std::unique_ptr<SyntaxTree> Parser::parse(std::string_view text, std::string* error) {
  loose_last_ = loose_ends(text);
  if (loose_last_.empty()) return parse_keeping(text, error, nullptr);
  return parse_keeping(read_as_spaces(text, loose_last_), error, nullptr);
}

bool Parser::parses_patched(const SyntaxTree& tree, std::string_view text) {
  return (tree.at(0).flags & SyntaxTree::HasError) && !rejected_unpacking_stars(tree, text).empty();
}

std::unique_ptr<SyntaxTree> Parser::parse_keeping(std::string_view text, std::string* error, void** keep,
                                                  NodeIndex* nodes) {
  std::unique_ptr<SyntaxTree> tree = parse_once(text, error, nullptr, keep, nullptr, nodes);
  if (!tree || !(tree->at(0).flags & SyntaxTree::HasError)) return tree;
  const std::vector<std::size_t> stars = rejected_unpacking_stars(*tree, text);
  if (stars.empty()) return tree;
  // Parsed again with those stars made spaces (offsets unchanged): the tuple then holds the unpacked
  // sequence itself, which is all the analysis needs. Kept only when that removes errors.
  std::string patched(text);
  for (std::size_t star : stars) patched[star] = ' ';
  std::unique_ptr<SyntaxTree> again = parse_once(patched, nullptr);
  if (again && error_count(*again) < error_count(*tree)) {
    if (nodes) nodes->clear();
    return again;
  }
  return tree;
}

// ============================================================================ source text
namespace {
std::atomic<std::uint64_t> next_source_id{1};

// Columns SourceText::position computed on this thread: byte `byte` of row `row` of text `text` is at
// column `column`; the least recently used one gives way to a new one. A finding's place, the places of
// its related locations (the loop around it: its start, and its end, which may lie on the same long line)
// and the next finding's place each keep one.
struct ColumnMark {
  std::uint64_t text = 0;
  std::uint32_t row = 0, byte = 0, column = 0;
  std::uint64_t used = 0;
};
constexpr std::size_t kColumnMarks = 8;
thread_local std::array<ColumnMark, kColumnMarks> column_marks;
thread_local std::uint64_t column_clock = 0;
}  // namespace

SourceText::SourceText(std::string path, const std::string& text)
    : path_(std::move(path)), text_(&text), id_(next_source_id.fetch_add(1, std::memory_order_relaxed)) {
  line_starts_.push_back(0);
  const char* const begin = text.data();
  const char* const end = begin + text.size();
  for (const char* nl = begin; (nl = static_cast<const char*>(std::memchr(nl, '\n', static_cast<std::size_t>(end - nl))));)
    line_starts_.push_back(static_cast<std::uint32_t>(++nl - begin));
}

std::string_view SourceText::text(Node n) const {
  const std::uint32_t b = start_byte(n), e = end_byte(n);
  if (b >= text_->size() || e <= b) return {};
  return std::string_view(*text_).substr(b, std::min<std::size_t>(e, text_->size()) - b);
}

Position SourceText::position(Point p) const {
  Position pos{p.row + 1, 1};
  if (p.row >= line_starts_.size()) return pos;
  const std::size_t start = line_starts_[p.row];
  const std::size_t end = std::max(start, std::min<std::size_t>(p.byte, text_->size()));
  std::size_t from = start;
  std::uint32_t col = 1;
  ColumnMark* base = nullptr;  // the mark on this row nearest before `end`
  ColumnMark* oldest = &column_marks[0];
  for (ColumnMark& m : column_marks) {
    if (m.text == id_ && m.row == p.row && m.byte >= start && m.byte <= end && (!base || m.byte > base->byte)) base = &m;
    if (m.used < oldest->used) oldest = &m;
  }
  if (base) {
    from = base->byte, col = base->column;
    base->used = ++column_clock;
  }
  for (std::size_t i = from; i < end; ++i)
    if ((static_cast<unsigned char>((*text_)[i]) & 0xC0) != 0x80) ++col;
  if (!base || base->byte != end) *oldest = ColumnMark{id_, p.row, static_cast<std::uint32_t>(end), col, ++column_clock};
  pos.column = col;
  return pos;
}

SourceRange SourceText::range(Node n) const {
  return SourceRange{path_, position(start_point(n)), position(end_point(n))};
}


// ============================================================================ tree allocator
namespace {
// tree-sitter allocates through mimalloc while it parses: no per-block header, thread-local free lists,
// blocks freed on any thread. The allocator is installed while the program starts (the static initializer
// below, before main and before any parser exists), so every block tree-sitter frees or grows came from
// mimalloc. (Telling mimalloc's blocks from malloc's by address, mi_is_in_heap_region, fails wherever
// mimalloc's memory lies outside its segment map: under AddressSanitizer, whose shadow takes the address
// range mimalloc asks for, it handed mimalloc blocks to free().) Without mimalloc (a build where it is
// missing), malloc.
#if SYNCLINT_HAVE_MIMALLOC
void* raw_malloc(std::size_t size) { return mi_malloc(size); }
void* raw_calloc(std::size_t n, std::size_t size) { return mi_calloc(n, size); }
void raw_free(void* p) { mi_free(p); }
void* raw_realloc(void* p, std::size_t size) { return mi_realloc(p, size); }
#else
void* raw_malloc(std::size_t size) { return std::malloc(size); }
void* raw_calloc(std::size_t n, std::size_t size) { return std::calloc(n, size); }
void raw_free(void* p) { std::free(p); }
void* raw_realloc(void* p, std::size_t size) { return std::realloc(p, size); }
#endif

#if SYNCLINT_HAVE_MIMALLOC
std::size_t block_size(void* p) { return mi_usable_size(p); }
#else
std::size_t block_size(void* p) { return malloc_usable_size(p); }
#endif

// Out of memory aborts, as tree-sitter's default allocator does.
void* counted(void* p) {
  if (p == nullptr) std::abort();
  tree_bytes += static_cast<std::int64_t>(block_size(p));
  return p;
}
void* allocate(std::size_t size) { return counted(raw_malloc(std::max<std::size_t>(size, 1))); }
void* zeroed(std::size_t n, std::size_t size) { return counted(raw_calloc(std::max<std::size_t>(n, 1), std::max<std::size_t>(size, 1))); }
void release(void* p) {
  if (p == nullptr) return;
  tree_bytes -= static_cast<std::int64_t>(block_size(p));
  raw_free(p);
}
void* resize(void* p, std::size_t size) {
  const std::size_t old = p != nullptr ? block_size(p) : 0;
  void* q = raw_realloc(p, std::max<std::size_t>(size, 1));
  if (q == nullptr) std::abort();
  tree_bytes += static_cast<std::int64_t>(block_size(q)) - static_cast<std::int64_t>(old);
  return q;
}
}  // namespace

void use_tree_allocator() {
  static std::once_flag once;
  std::call_once(once, [] { ts_set_allocator(allocate, zeroed, resize, release); });
}

void keep_freed_memory() {
#if SYNCLINT_HAVE_MIMALLOC
#if MI_MALLOC_VERSION >= 210
  mi_option_set(mi_option_purge_delay, -1);  // never
#else
  // New segments never give pages back; those made before this call (while the program started) would
  // still do so after the delay, which is made a day.
  mi_option_disable(mi_option_allow_decommit);
  mi_option_set(mi_option_decommit_delay, 24L * 3600 * 1000);
#endif
#else
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  mallopt(M_MMAP_THRESHOLD, 1 << 25);
#endif
}

namespace {
[[maybe_unused]] const bool tree_allocator_installed_at_start = (use_tree_allocator(), true);
}  // namespace

}  // namespace synclint::python
