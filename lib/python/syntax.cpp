#include "python/syntax.h"

#include <sys/mman.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <malloc.h>
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
// Small blocks (syntax tree nodes, leaves, the parser's small arrays) come from 64 KiB slabs of one size
// class each, carved from one reserved address range. A block has no header (glibc's malloc adds 8 bytes
// and rounds to 16: about 15% of a tree). Freed blocks go to a per-thread list of their class (no locking);
// they move to and from shared lists in batches, and all of them when a thread ends. Larger blocks, and all blocks
// once the range is used up or could not be reserved, come from malloc; a pointer outside the range is
// malloc's. Memory is reused, never returned to the system.
namespace talloc {
constexpr std::size_t kGranule = 8;
constexpr std::size_t kMaxSmall = 256;
constexpr std::size_t kClasses = kMaxSmall / kGranule + 1;  // class c holds blocks of c * kGranule bytes
constexpr std::size_t kSlab = 64u << 10;
constexpr std::size_t kRange = std::size_t{16} << 30;  // address space only: untouched pages take no memory
constexpr std::uint32_t kBatch = 256;  // blocks moved between a thread's list and the shared one at a time

struct Block {
  Block* next;
};

char* range_begin = nullptr;
std::atomic<std::size_t> range_used{0};
std::uint8_t* slab_class = nullptr;  // class of each slab of the range

// Free blocks move between threads in batches of up to kBatch blocks (a list with its last block and count).
struct Batch {
  Block* head = nullptr;
  Block* tail = nullptr;
  std::uint32_t count = 0;
};
std::mutex shared_mutex;
std::array<std::vector<Batch>, kClasses> shared;                    // guarded by shared_mutex
std::array<std::atomic<std::uint32_t>, kClasses> shared_batches{};  // shared[c].size(), read without the lock

struct Cache {
  std::array<Batch, kClasses> free;   // blocks handed out first
  std::array<Batch, kClasses> spill;  // blocks freed while `free` is full: shared once a batch is complete
  std::array<char*, kClasses> bump;
  std::array<char*, kClasses> bump_end;
  std::int64_t held;  // bytes allocated minus bytes freed on this thread
  bool live;          // a Flusher is registered for this thread
  bool dead;          // this thread's Flusher ran: the thread is ending
};
thread_local Cache cache{};  // trivially destructible: usable during thread exit

bool in_range(const void* p) {
  return range_begin != nullptr && static_cast<const char*>(p) >= range_begin &&
         static_cast<const char*>(p) < range_begin + kRange;
}
std::size_t class_of(const void* p) {
  return slab_class[static_cast<std::size_t>(static_cast<const char*>(p) - range_begin) / kSlab];
}

void push(Batch& b, Block* blk) {
  blk->next = b.head;
  if (!b.head) b.tail = blk;
  b.head = blk;
  ++b.count;
}

void share(std::size_t c, Batch& b) {
  if (!b.head) return;
  std::lock_guard<std::mutex> lock(shared_mutex);
  shared[c].push_back(b);
  shared_batches[c].store(static_cast<std::uint32_t>(shared[c].size()), std::memory_order_relaxed);
  b = Batch{};
}

bool take_shared(std::size_t c, Batch& into) {
  if (shared_batches[c].load(std::memory_order_relaxed) == 0) return false;
  std::lock_guard<std::mutex> lock(shared_mutex);
  if (shared[c].empty()) return false;
  into = shared[c].back();
  shared[c].pop_back();
  shared_batches[c].store(static_cast<std::uint32_t>(shared[c].size()), std::memory_order_relaxed);
  return true;
}

// Hands this thread's free blocks, and the rest of its slabs, to the shared lists.
void flush() {
  for (std::size_t c = 1; c < kClasses; ++c) {
    const std::size_t size = c * kGranule;
    Batch rest;
    for (char* b = cache.bump[c]; b && b + size <= cache.bump_end[c]; b += size) push(rest, reinterpret_cast<Block*>(b));
    cache.bump[c] = cache.bump_end[c] = nullptr;
    share(c, rest);
    share(c, cache.free[c]);
    share(c, cache.spill[c]);
  }
}

struct Flusher {
  ~Flusher() {
    flush();
    cache.dead = true;
  }
};

void* allocate_large(std::size_t size) {
  void* p = std::malloc(size);
  if (!p) std::abort();  // as tree-sitter's own allocator does
  cache.held += static_cast<std::int64_t>(malloc_usable_size(p));
  return p;
}

void* allocate(std::size_t size) {
  const std::size_t c = (std::max<std::size_t>(size, 1) + kGranule - 1) / kGranule;
  if (c >= kClasses || cache.dead || !range_begin) return allocate_large(size);
  if (!cache.live) {
    thread_local Flusher flusher;
    (void)flusher;
    cache.live = true;
  }
  const std::size_t bytes = c * kGranule;
  Batch& f = cache.free[c];
  if (!f.head) {
    if (cache.spill[c].head) std::swap(f, cache.spill[c]);
    else take_shared(c, f);
  }
  if (Block* b = f.head) {
    f.head = b->next;
    --f.count;
    cache.held += static_cast<std::int64_t>(bytes);
    return b;
  }
  if (!cache.bump[c] || cache.bump[c] + bytes > cache.bump_end[c]) {
    const std::size_t at = range_used.fetch_add(kSlab);
    if (at + kSlab > kRange) return allocate_large(size);
    slab_class[at / kSlab] = static_cast<std::uint8_t>(c);
    cache.bump[c] = range_begin + at;
    cache.bump_end[c] = cache.bump[c] + kSlab;
  }
  void* p = cache.bump[c];
  cache.bump[c] += bytes;
  cache.held += static_cast<std::int64_t>(bytes);
  return p;
}

void release(void* p) {
  if (!p) return;
  if (!in_range(p)) {
    cache.held -= static_cast<std::int64_t>(malloc_usable_size(p));
    std::free(p);
    return;
  }
  const std::size_t c = class_of(p);
  cache.held -= static_cast<std::int64_t>(c * kGranule);
  Block* b = static_cast<Block*>(p);
  if (cache.dead) {
    Batch one;
    push(one, b);
    share(c, one);
    return;
  }
  // Blocks freed here may have been allocated by another thread: past kBatch free ones, complete batches are
  // shared.
  if (cache.free[c].count < kBatch) {
    push(cache.free[c], b);
    return;
  }
  push(cache.spill[c], b);
  if (cache.spill[c].count >= kBatch) share(c, cache.spill[c]);
}

void* zeroed(std::size_t count, std::size_t size) {
  const std::size_t bytes = count * size;
  void* p = allocate(bytes);
  std::memset(p, 0, bytes);
  return p;
}

void* resize(void* p, std::size_t size) {
  if (!p) return allocate(size);
  std::size_t old = 0;
  if (in_range(p)) {
    old = class_of(p) * kGranule;
    if (size <= old && size > old / 2) return p;
  } else {
    old = malloc_usable_size(p);
  }
  void* q = allocate(size);
  std::memcpy(q, p, std::min(old, size));
  release(p);
  return q;
}
}  // namespace talloc
}  // namespace

void use_tree_allocator() {
  static std::once_flag once;
  std::call_once(once, [] {
    constexpr int kProt = PROT_READ | PROT_WRITE, kFlags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE;
    void* range = mmap(nullptr, talloc::kRange, kProt, kFlags, -1, 0);
    void* classes = mmap(nullptr, talloc::kRange / talloc::kSlab, kProt, kFlags, -1, 0);
    if (range != MAP_FAILED && classes != MAP_FAILED) {
      talloc::slab_class = static_cast<std::uint8_t*>(classes);
      talloc::range_begin = static_cast<char*>(range);
    } else {
      if (range != MAP_FAILED) munmap(range, talloc::kRange);
      if (classes != MAP_FAILED) munmap(classes, talloc::kRange / talloc::kSlab);
    }
    // Without the range every block comes from malloc; the count of bytes held per thread still works.
    ts_set_allocator(talloc::allocate, talloc::zeroed, talloc::resize, talloc::release);
  });
}

std::int64_t tree_bytes_held_here() { return talloc::cache.held; }
std::size_t slab_bytes() { return talloc::range_used.load(); }

}  // namespace synclint::python
