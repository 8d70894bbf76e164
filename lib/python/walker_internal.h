// The walker of one file, shared by its parts: walker.cpp (functions, effects, the entry points),
// walk_statements.cpp, walk_expressions.cpp, walk_calls.cpp, hot_context.cpp (heat, messages, reports)
// and rewalk.cpp (the partial re-walk). The library model (library_model.h) says what calls into
// PyTorch and Python's builtins give back; the rule table (rules/table.cpp) judges the sites.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "python/library_hooks.h"
#include "python/library_model.h"
#include "python/walker.h"

namespace synclint::python::walk {

// Recursion depth of the statement and expression walk. Deeper code (thousands of nested blocks or
// operators) is walked without flow facts, never recursively past this bound.
constexpr int kMaxDepth = 180;

enum class Periodic { None, WhenTrue, WhenFalse };

struct Frame {
  // Loop; Guard: a periodic condition; Boundary: a lambda; Cold: code that only runs on failure (raise).
  enum class Kind : std::uint8_t { Loop, Guard, Boundary, Cold } kind = Kind::Loop;
  Node node{};
  bool multiplier = false;
  bool params = false;
  int count = -1;
  bool epoch = false;  // a loop that holds an inner batch loop: its own body runs once per epoch
};

struct HotInfo {
  Heat heat = Heat::Cold;
  bool in_loop = false;
  Node loop{};
  bool periodic = false;
  Node guard{};
  bool multiplied = false;
  bool params = false;
  long reads = 1;  // -1 unknown
  bool periodic_caller = false;  // a loop in a function that only runs at logging intervals
  bool once = false;             // under a once-only guard, outside any loop
};

struct TimerState {
  bool work = false;                  // GPU work queued since this reading, not waited for
  bool synced = false;                // a blocking read or synchronize ran since this reading
  std::vector<int> unsynced_before;   // earlier timers with unsynced work when this one was read
  Node node{};
};

// Joins a value assigned to `self.name` in a method into its class's attributes.
void add_class_attr(std::unordered_map<std::string, Value>& attrs, const std::string& name, const Value& v);

class Walker final : public Checker {
 public:
  Walker(Project& p, int file, bool emit, FileOutput& out)
      : p_(p), file_(file), f_(p.files[file]), src_(*f_.src), emit_(emit), out_(out), lib_(*p.catalog, *this) {}

  void run() {
    walk_function(f_.module_func);
    for (int fn : f_.funcs) walk_function(fn);
  }
  // rewalk.cpp
  // `dirty`, `before` (the results `old`'s walk wrote) and the returned count of functions that kept their
  // output are by the file's functions in order, the module body first.
  std::size_t run_again(FileOutput& old, const char* dirty, const FuncSummary* before, const Env& before_globals);
  void merge_findings(FileOutput& old, const std::vector<char>& walk, FileOutput& merged);

  // Checker
  std::string_view text(Node n) const override { return src_.text(n); }
  std::string where(Node n) const override { return f_.display + ":" + std::to_string(src_.line(n)); }
  void report(const Rule& rule, Node at, Confidence confidence, std::string_view what, std::string_view fix,
              bool syncs, std::vector<TextEdit> edits) override;
  Span span(Node n) const { return Span{src_.position(start_point(n)), src_.position(end_point(n))}; }
  // A loop's place in related locations and calling chains: its header (`for x in loader:`), which stays
  // where it is while its body is edited (a comprehension's clause whole).
  Span loop_span(Node loop) const;
  SourceRange before_end(Node n) const override {
    Point end = end_point(n);
    if (end.byte > src_.line_start(end.row)) --end.byte;
    const Position p = src_.position(end);
    return SourceRange{src_.path(), p, p};
  }

 private:
  // ---- functions (walker.cpp)
  void walk_function(int fn);
  void bind_params(const FuncInfo& fi);

  // ---- statements (walk_statements.cpp)
  void block(Node n);
  void stmt(Node n);
  void if_stmt(Node n);
  void match_stmt(Node n);
  void for_stmt(Node n);
  void while_stmt(Node n);
  void generic(Node n);
  void flat(Node n);
  Frame loop_frame(Node loop, Node iterable_node, const Value& iterable, Node target, Node body);
  bool calls_batch_loop(Node stmt_node);
  int called_function(Node call);
  bool ends_process(Node s) const;
  void assign(Node target, const Value& v);

  // ---- expressions (walk_expressions.cpp)
  Value expr(Node n);
  Value expr_inner(Node n);
  Value cond(Node n);
  Value lookup(const std::string& name, bool* bound = nullptr);
  Value binding_value(const Binding& b);
  Value symbol_value(int file, const std::string& symbol, const std::string& dotted);
  Value module_attr(const Value& mod, std::string_view attr);
  Value attribute(Node n);
  Value subscript(Node n, std::vector<Value>* index_out, Value* base_out);
  std::optional<Value> slice_of(const Value& container, Node slice) const;
  Value binary(Node n);
  Value comparison(Node n);
  Value string(Node n);
  Value sequence(Node n);
  Value dictionary(Node n);
  Value comprehension(Node n);
  Value lambda(Node n);
  bool rebinds_to_device(Node left, Node right) const;
  std::string path_key(Node n) const;

  // ---- calls (walk_calls.cpp)
  Value call(Node n);
  void collect_args(Node args, CallInfo& ci);
  Value call_result(CallInfo& ci, const Value& callee, bool is_method, bool& work, bool& syncs);
  Value new_timer(const CallInfo& ci);
  Value method_result(CallInfo& ci, bool& work, bool& syncs);
  void override_calls(int cls, std::string_view m, const CallInfo& ci, bool& work, bool& syncs);
  Value module_call(const Value& mod, const CallInfo& ci, bool& work, bool& syncs);
  Value project_call(int callee, const CallInfo& ci, bool bound, bool& work, bool& syncs);
  void dispatch_call(CallInfo& ci);

  // ---- hot context and messages (hot_context.cpp)
  HotInfo hot_info(bool lexical_only) const;
  Lexical lexical() const;
  Periodic periodic_kind(Node c, int depth = 0) const;
  Periodic guard_kind(Node c);
  void once_block(Node body, Node guard, bool statement = false);
  bool once_only(Node c, int depth = 0, bool exit = false) const;
  // `if new != current:` whose body records `current = new`: it runs when a value changes (a curriculum
  // stage, a resized schedule), not every step.
  bool change_guard(Node c, Node body) const;
  bool interval_modulo(Node binop) const;
  // The hot-context phrase of a finding; where it put the calling chain goes to `part` (message_at within
  // the phrase), when it used the chain.
  std::string phrase(const HotInfo& h, std::vector<RelatedLocation>& related,
                     std::optional<FileOutput::ChainPart>& part) const;
  void chain(int fn, std::string& where_called, std::vector<RelatedLocation>& related, Heat heat) const;

  // ---- rules
  // Runs one kind of check (&RuleEntry::condition, ::format, ::subscript or ::timing) of every rule of the
  // table that the catalog holds, on one site.
  template <class Site>
  void check_site(void (*RuleEntry::*check)(const Rule&, const Site&, Checker&), const Site& site) {
    for (const RuleEntry& e : rule_table()) {
      if (!(e.*check)) continue;
      if (const Rule* rule = p_.catalog->find(e.id)) (e.*check)(*rule, site, *this);
    }
  }

  // ---- effects
  void gpu_work() {
    sum().gpu_work = true;
    for (auto& t : timers_) t.work = true;
  }
  void synced() {
    sum().syncs = true;
    for (auto& t : timers_) {
      t.work = false;
      t.synced = true;
    }
  }
  FuncSummary& sum() { return p_.next.funcs[func_]; }
  const Value* class_attr(int cls, const std::string& name) {
    for (int c = cls, depth = 0; c >= 0 && depth < 16; ++depth) {
      out_.read_classes.emplace(func_, c, name);
      c = p_.classes[c].base_ids.empty() ? -1 : p_.classes[c].base_ids.front();
    }
    return p_.class_attr(cls, name);
  }
  const FuncSummary& prev_sum(int fn) const { return p_.prev.funcs[fn]; }
  // The summary of project function `fn` as this walk reads it: a function of this file already walked in
  // this round has a fresher one (Gauss-Seidel order).
  const FuncSummary& callee_sum(int fn) {
    out_.read_funcs.emplace(func_, fn);
    return walked_.count(fn) ? p_.next.funcs[fn] : prev_sum(fn);
  }

  Project& p_;
  int file_;
  FileModel& f_;
  const SourceText& src_;
  bool emit_;
  FileOutput& out_;
  const LibraryModel lib_;

  int func_ = -1;
  bool in_module_ = false;
  Env env_;
  std::vector<Frame> frames_;
  std::vector<TimerState> timers_;
  std::unordered_map<std::string, Periodic> periodic_vars_;  // flags assigned a periodic condition
  int depth_ = 0;
  const void* stmt_call_ = nullptr;
  std::unordered_map<int, Env> final_env_;
  std::unordered_set<int> walked_;
  std::set<std::pair<const void*, std::string>> reported_;
};

}  // namespace synclint::python::walk
