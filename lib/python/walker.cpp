#include "python/walker.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdlib>
#include <optional>
#include <unordered_set>

#include "core/catalog.h"
#include "python/nn_layers.h"

namespace synclint::python {
namespace {

// Recursion depth of the statement and expression walk. Deeper code (thousands of nested blocks or
// operators) is walked without flow facts, never recursively past this bound.
constexpr int kMaxDepth = 180;

// Does `hay` contain `needle` (lower case), ignoring the case of ASCII letters?
bool contains_ci(std::string_view hay, std::string_view needle) {
  if (needle.empty()) return true;
  if (needle.size() > hay.size()) return false;
  auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
  for (std::size_t i = 0; i + needle.size() <= hay.size(); ++i) {
    if (lower(hay[i]) != needle[0]) continue;
    std::size_t j = 1;
    while (j < needle.size() && lower(hay[i + j]) == needle[j]) ++j;
    if (j == needle.size()) return true;
  }
  return false;
}

std::string_view last_part(std::string_view dotted) {
  const auto dot = dotted.rfind('.');
  return dot == std::string_view::npos ? dotted : dotted.substr(dot + 1);
}

bool one_of(std::string_view s, std::initializer_list<std::string_view> names) {
  return std::find(names.begin(), names.end(), s) != names.end();
}

// Tensor attributes that are host metadata: reading them never syncs.
bool host_attribute(std::string_view a) {
  // Predicates and sizes: `x.is_cuda`, `packed.batch_sizes`, `lengths` tensors live on the host.
  if (a.starts_with("is_") || a.starts_with("has_") || a.ends_with("size") || a.ends_with("sizes") ||
      a.ends_with("lengths"))
    return true;
  return one_of(a, {"shape", "dtype", "device", "ndim", "is_cuda", "requires_grad", "is_leaf", "layout", "names",
                    "itemsize", "nbytes", "is_sparse", "is_quantized", "is_meta", "grad_fn", "output_nr",
                    "_version", "training", "is_mps", "is_cpu"});
}
// Tensor methods that return host metadata without reading values.
bool host_method(std::string_view m) {
  if (m.starts_with("is_") || m.starts_with("has_")) return true;
  return one_of(m, {"size", "dim", "numel", "stride", "data_ptr", "element_size", "is_contiguous", "get_device",
                    "is_floating_point", "is_complex", "nelement", "ndimension", "storage_offset", "__len__",
                    "type", "is_pinned", "is_shared", "untyped_storage", "_nnz", "nnz"});
}
bool mask_method(std::string_view m) {
  return one_of(m, {"eq", "ne", "gt", "lt", "ge", "le", "isnan", "isinf", "isfinite", "bool", "logical_and",
                    "logical_or", "logical_not", "logical_xor", "any", "all", "isclose", "isneginf", "isposinf",
                    "signbit", "greater", "less", "equal_", "greater_equal", "less_equal", "not_equal"});
}
bool module_method(std::string_view m) {
  return one_of(m, {"train", "eval", "requires_grad_", "half", "float", "double", "bfloat16", "apply",
                    "share_memory", "to_empty", "compile"});
}
bool factory(std::string_view f) {
  return one_of(f, {"tensor", "as_tensor", "zeros", "ones", "empty", "full", "rand", "randn", "randint",
                    "randperm", "arange", "linspace", "logspace", "eye", "zeros_like", "ones_like", "empty_like",
                    "full_like", "rand_like", "randn_like", "randint_like", "from_numpy", "normal",
                    "empty_strided", "tril_indices", "triu_indices", "scalar_tensor", "range"});
}
// A name that holds a data loader when nothing else is known about it.
bool loader_name(std::string_view n) { return contains_ci(n, "loader") || contains_ci(n, "batches") || n == "dl"; }
// An inner loop over such a name (or a dataset) is the batch loop of an epoch loop.
bool batch_source_name(std::string_view n) {
  return loader_name(n) || contains_ci(n, "dataset") || n == "data" || n == "train_data" || n == "val_data";
}
// An unknown callable whose result is a device tensor when its arguments are: a model, a loss, a module.
bool tensor_callable_name(std::string_view n) {
  return contains_ci(n, "loss") || contains_ci(n, "criterion") || contains_ci(n, "model") || contains_ci(n, "net") ||
         contains_ci(n, "module") || contains_ci(n, "encoder") || contains_ci(n, "decoder") ||
         contains_ci(n, "head") || contains_ci(n, "layer") || contains_ci(n, "policy") || contains_ci(n, "critic") ||
         contains_ci(n, "actor") || contains_ci(n, "backbone") || contains_ci(n, "gather") ||
         contains_ci(n, "reduce");
}

// Parameters of per-step callbacks that the framework hands over on the device.
bool callback_tensor_param(std::string_view n) {
  return one_of(n, {"batch", "x", "y", "inputs", "input", "targets", "target", "labels", "images", "outputs",
                    "logits", "preds", "features"});
}

Value from_string_literal(std::string_view t) {
  // t is the literal with quotes and prefixes.
  std::size_t b = 0;
  while (b < t.size() && t[b] != '"' && t[b] != '\'') ++b;
  std::string_view body = t.substr(std::min(b, t.size()));
  while (!body.empty() && (body.front() == '"' || body.front() == '\'')) body.remove_prefix(1);
  while (!body.empty() && (body.back() == '"' || body.back() == '\'')) body.remove_suffix(1);
  if (body == "cuda" || body.starts_with("cuda:")) {
    Value v = Value::of(VK::DeviceSpec);
    v.cuda = true;
    return v;
  }
  if (body == "cpu" || body == "mps" || body == "meta") return Value::of(VK::DeviceSpec);
  return Value::host();
}

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
};

// Names bound only inside a comprehension or a lambda: their outer values come back afterwards.
class Shadow {
 public:
  explicit Shadow(Env& env) : env_(env) {}
  Shadow(const Shadow&) = delete;
  Shadow& operator=(const Shadow&) = delete;
  void hide(const std::string& name) {
    auto it = env_.find(name);
    saved_.emplace_back(name, it == env_.end() ? std::nullopt : std::optional<Value>(it->second));
  }
  ~Shadow() {
    for (auto it = saved_.rbegin(); it != saved_.rend(); ++it) {
      if (it->second) env_[it->first] = *it->second;
      else env_.erase(it->first);
    }
  }

 private:
  Env& env_;
  std::vector<std::pair<std::string, std::optional<Value>>> saved_;
};

struct TimerState {
  bool work = false;                  // GPU work queued since this reading, not waited for
  std::vector<int> unsynced_before;   // earlier timers with unsynced work when this one was read
  Node node{};
};

// Joins a value assigned to `self.name` in a method into its class's attributes.
void add_class_attr(std::unordered_map<std::string, Value>& attrs, const std::string& name, const Value& v) {
  auto it = attrs.find(name);
  if (it == attrs.end()) attrs.emplace(name, v);
  else it->second = join(it->second, v);
}

class Walker final : public Checker {
 public:
  Walker(Project& p, int file, bool emit, FileOutput& out)
      : p_(p), file_(file), f_(p.files[file]), src_(*f_.src), emit_(emit), out_(out) {}

  void run() {
    walk_function(f_.module_func);
    for (int fn : f_.funcs) walk_function(fn);
  }
  void run_again(FileOutput& old, const std::vector<char>& dirty);

  // Checker
  std::string_view text(Node n) const override { return src_.text(n); }
  std::string where(Node n) const override { return f_.display + ":" + std::to_string(src_.line(n)); }
  void report(const Rule& rule, Node at, Confidence confidence, std::string_view what, std::string_view fix,
              bool syncs, std::vector<TextEdit> edits) override;
  Span span(Node n) const { return Span{src_.position(start_point(n)), src_.position(end_point(n))}; }
  SourceRange before_end(Node n) const override {
    Point end = end_point(n);
    if (end.byte > src_.line_start(end.row)) --end.byte;
    const Position p = src_.position(end);
    return SourceRange{src_.path(), p, p};
  }

 private:
  // ---- functions
  void walk_function(int fn);
  void bind_params(const FuncInfo& fi);

  // ---- statements
  void block(Node n);
  void stmt(Node n);
  void if_stmt(Node n);
  void match_stmt(Node n);
  void for_stmt(Node n);
  void while_stmt(Node n);
  void generic(Node n);
  void flat(Node n);

  // ---- expressions
  Value expr(Node n);
  Value expr_inner(Node n);
  Value cond(Node n);
  Value lookup(const std::string& name, bool* bound = nullptr);
  Value binding_value(const Binding& b);
  Value symbol_value(int file, const std::string& symbol, const std::string& dotted);
  Value module_attr(const Value& mod, std::string_view attr);
  Value attribute(Node n);
  Value subscript(Node n, std::vector<Value>* index_out, Value* base_out);
  Value call(Node n);
  Value binary(Node n);
  Value comparison(Node n);
  Value string(Node n);
  Value sequence(Node n);
  Value dictionary(Node n);
  Value comprehension(Node n);
  Value lambda(Node n);
  void collect_args(Node args, CallInfo& ci);

  // ---- call semantics
  Value call_result(CallInfo& ci, const Value& callee, bool is_method, bool& work, bool& syncs);
  Value builtin_result(const CallInfo& ci);
  Value external_result(const CallInfo& ci, const std::string& q);
  int torch_module_parameters(const CallInfo& ci, std::string_view layer) const;
  std::optional<Value> slice_of(const Value& container, Node slice) const;
  std::optional<long> integer_literal(Node n) const;
  Value method_result(CallInfo& ci, bool& work, bool& syncs);
  Value module_call(const Value& mod, const CallInfo& ci, bool& work, bool& syncs);
  Value project_call(int callee, const CallInfo& ci, bool bound, bool& work, bool& syncs);
  void dispatch_call(CallInfo& ci);
  bool timing_function(const std::string& q) const;

  // ---- assignment
  void assign(Node target, const Value& v);
  std::string path_key(Node n) const;

  // ---- context
  HotInfo hot_info(bool lexical_only) const;
  Lexical lexical() const;
  Frame loop_frame(Node loop, Node iterable_node, const Value& iterable, Node target, Node body);
  Periodic periodic_kind(Node c, int depth = 0) const;
  bool interval_modulo(Node binop) const;
  bool calls_batch_loop(Node stmt_node);
  std::string phrase(const HotInfo& h, std::vector<RelatedLocation>& related) const;
  void chain(int fn, std::string& where_called, std::vector<RelatedLocation>& related, Heat heat) const;

  // ---- effects
  void gpu_work() {
    sum().gpu_work = true;
    for (auto& t : timers_) t.work = true;
  }
  void synced() {
    sum().syncs = true;
    for (auto& t : timers_) t.work = false;
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

  int func_ = -1;
  bool in_module_ = false;
  Env env_;
  std::vector<Frame> frames_;
  std::vector<TimerState> timers_;
  int depth_ = 0;
  const void* stmt_call_ = nullptr;
  std::unordered_map<int, Env> final_env_;
  std::unordered_set<int> walked_;
  std::set<std::pair<const void*, std::string>> reported_;
};

// ============================================================================ functions

// The units of a file are the module body, and each top-level function or method with the functions nested
// in it (they start from its final environment): in f_.funcs (pre-order) a unit runs up to the next function
// without a parent.
void Walker::run_again(FileOutput& old, const std::vector<char>& dirty) {
  const int base = f_.module_func;
  const std::size_t n = f_.funcs.size() + 1;  // the module body is position 0, f_.funcs[k - 1] position k
  std::vector<char> walk(n, 0), changed(n, 0);
  std::vector<std::vector<std::size_t>> reads(n);  // earlier walks' reads of this file's summaries
  std::vector<char> found(n, 0);                   // functions with a finding of the earlier walk
  for (int f : old.finding_funcs) found[static_cast<std::size_t>(f - base)] = 1;
  for (const auto& [f, g] : old.read_funcs)
    if (g >= base && static_cast<std::size_t>(g - base) < n) reads[static_cast<std::size_t>(f - base)].push_back(g - base);
  auto walk_at = [&](std::size_t k) {
    const int fn = base + static_cast<int>(k);
    walk_function(fn);
    walk[k] = 1;
    changed[k] = result_differs(p_.prev.funcs[fn], p_.next.funcs[fn]);
  };
  bool all = false;
  if (dirty[base] || found[0]) {
    walk_at(0);
    // Every function reads the module's names: once they changed, the rest is walked as walk_file does.
    all = !same_env(p_.prev.globals[file_], p_.next.globals[file_]);
  }
  for (std::size_t k = 1; k < n;) {
    std::size_t end = k + 1;
    while (end < n && p_.funcs[base + static_cast<int>(end)].parent >= 0) ++end;
    bool w = all;
    for (std::size_t j = k; !w && j < end; ++j) {
      w = dirty[base + static_cast<int>(j)] || found[j];
      for (std::size_t g : reads[j]) w = w || (walk[g] && changed[g]);
    }
    for (std::size_t j = k; j < end; ++j) {
      if (w) walk_at(j);
      else walked_.insert(base + static_cast<int>(j));  // its summary in p_.next is the earlier walk's
    }
    k = end;
  }

  // The output in walk order: the earlier walk's for the functions not walked now.
  // Every function with an earlier finding was walked now: the findings are the new ones.
  FileOutput merged;
  merged.findings = std::move(out_.findings);
  merged.finding_funcs = std::move(out_.finding_funcs);
  // Both outputs hold each function's items together and in walk order: merged function by function.
  auto merge = [&](auto& now, auto& before, auto& to, auto func_of) {
    std::size_t i_now = 0, i_before = 0;
    for (std::size_t k = 0; k < n; ++k) {
      const int fn = base + static_cast<int>(k);
      auto& src = walk[k] ? now : before;
      auto& other = walk[k] ? before : now;
      std::size_t& i = walk[k] ? i_now : i_before;
      std::size_t& j = walk[k] ? i_before : i_now;
      while (i < src.size() && func_of(src[i]) == fn) to.push_back(std::move(src[i++]));
      while (j < other.size() && func_of(other[j]) == fn) ++j;
    }
  };
  merge(out_.edges, old.edges, merged.edges, [](const CallEdge& e) { return e.caller; });
  merge(out_.attr_writes, old.attr_writes, merged.attr_writes, [](const FileOutput::AttrWrite& w) { return w.func; });
  auto keep_old = [&](int f) { return !walk[static_cast<std::size_t>(f - base)]; };
  for (auto& r : old.read_classes)
    if (keep_old(std::get<0>(r))) merged.read_classes.insert(r);
  for (auto& r : old.read_globals)
    if (keep_old(std::get<0>(r))) merged.read_globals.insert(r);
  for (auto& r : old.read_funcs)
    if (keep_old(r.first)) merged.read_funcs.insert(r);
  merged.read_classes.merge(out_.read_classes);
  merged.read_globals.merge(out_.read_globals);
  merged.read_funcs.merge(out_.read_funcs);

  // The file's class attributes, joined again from all writes in walk order.
  for (const auto& w : merged.attr_writes) p_.next.class_attrs[w.cls].clear();
  for (const auto& w : merged.attr_writes) add_class_attr(p_.next.class_attrs[w.cls], w.name, w.value);
  out_ = std::move(merged);
}

void Walker::walk_function(int fn) {
  func_ = fn;
  const FuncInfo& fi = p_.funcs[fn];
  in_module_ = fi.module_body;
  env_.clear();
  frames_.clear();
  timers_.clear();
  depth_ = 0;
  sum() = FuncSummary{};
  if (fi.parent >= 0) {
    auto it = final_env_.find(fi.parent);
    if (it != final_env_.end()) env_ = it->second;
  }
  if (fi.module_body) {
    block(fi.node);
    p_.next.globals[file_] = std::move(env_);
    walked_.insert(fn);
    return;
  }
  bind_params(fi);
  Node body = field(fi.node, "body");
  if (!null(body)) block(body);
  walked_.insert(fn);
  // Only functions with nested definitions need their final environment.
  if (fi.has_nested) final_env_[fn] = std::move(env_);
}

void Walker::bind_params(const FuncInfo& fi) {
  const FuncSummary& ps = prev_sum(func_);
  const bool callback =
      std::find(p_.options->hot_functions.begin(), p_.options->hot_functions.end(), fi.name) !=
      p_.options->hot_functions.end();
  for (std::size_t i = 0; i < fi.params.size(); ++i) {
    const std::string& name = fi.params[i];
    Value v;
    if (i == 0 && fi.bound_first && fi.cls >= 0) {
      v = Value::of(p_.classes[fi.cls].is_module ? VK::Module : VK::Instance);
      v.id = fi.cls;
      env_[name] = v;
      continue;
    }
    // An unknown argument at the call sites tells nothing: it counts as no call-site fact.
    const bool known = i < ps.param_known.size() && ps.param_known[i] && ps.params[i].kind != VK::Unknown;
    if (known) v = ps.params[i];
    if (!null(fi.defaults[i])) {
      Value d = expr(fi.defaults[i]);
      v = known ? join(v, d) : d;
    }
    if (v.kind == VK::Unknown && contains_ci(name, "device")) {
      v = Value::of(VK::DeviceSpec, Confidence::Medium);
      v.cuda = true;
    }
    if (v.kind == VK::Unknown && callback && callback_tensor_param(name)) v = Value::device(Confidence::Medium);
    env_[name] = v;
  }
}

// ============================================================================ statements

void Walker::block(Node n) {
  const std::size_t frames_at_start = frames_.size();
  for (Node s : named_children(n)) {
    {
      stmt(s);
      // `if step % N != 0: continue` makes the rest of the block periodic.
      if (kind(s) == K::IfStatement && null(field(s, "alternative"))) {
        Node cons = field(s, "consequence");
        if (!null(cons) && named_count(cons) == 1 && kind(named(cons, 0)) == K::ContinueStatement &&
            periodic_kind(field(s, "condition")) == Periodic::WhenFalse) {
          Frame g;
          g.kind = Frame::Kind::Guard;
          g.node = field(s, "condition");
          frames_.push_back(g);
        }
      }
    }
  }
  frames_.resize(frames_at_start);
}

void Walker::flat(Node n) {
  // Past the depth bound: visit calls and conditions without flow facts, iteratively.
  PreOrder walk(n);
  const int saved = depth_;
  depth_ = kMaxDepth - 8;  // leave room for a few levels of evaluation per visited node
  for (Node cur; !null(cur = walk.next());) {
    const K k = kind(cur);
    if (k == K::Call || k == K::Subscript || k == K::Interpolation) {
      // Evaluate small expressions only; deeper ones are left to their children.
      if (named_count(cur) <= 4) {
        (void)expr(cur);
        walk.skip_children();
      }
    }
  }
  depth_ = saved;
}

void Walker::stmt(Node n) {
  if (depth_ > kMaxDepth) {
    flat(n);
    return;
  }
  ++depth_;
  switch (kind(n)) {
    case K::ExpressionStatement:
      for (Node n_i : named_children(n)) {
        Node e = n_i;
        if (kind(e) == K::Call) stmt_call_ = node_id(e);
        (void)expr(e);
      }
      stmt_call_ = nullptr;
      break;
    case K::ReturnStatement:
      if (named_count(n) > 0) {
        Value v = expr(named(n, 0));
        FuncSummary& s = sum();
        s.ret = s.returns ? join(s.ret, v) : v;
        s.returns = true;
      }
      break;
    case K::IfStatement: if_stmt(n); break;
    case K::MatchStatement: match_stmt(n); break;
    case K::ForStatement: for_stmt(n); break;
    case K::WhileStatement: while_stmt(n); break;
    case K::AssertStatement:
      if (named_count(n) > 0) (void)cond(named(n, 0));
      break;
    case K::RaiseStatement: {
      // The exception is built only on the failure path.
      Frame cold;
      cold.kind = Frame::Kind::Cold;
      cold.node = n;
      frames_.push_back(cold);
      generic(n);
      frames_.pop_back();
      break;
    }
    case K::WithStatement: {
      Node body = field(n, "body");
      for (Node n_i : named_children(n)) {
        Node clause = n_i;
        if (clause == body) continue;
        for (Node clause_j : named_children(clause)) {
          Node item = clause_j;
          if (kind(item) != K::WithItem) continue;
          Node v = field(item, "value");
          if (kind(v) == K::AsPattern && named_count(v) >= 2) {
            Value val = expr(named(v, 0));
            Node alias = field(v, "alias");
            if (!null(alias) && named_count(alias) > 0) alias = named(alias, 0);
            if (!null(alias)) assign(alias, val);
          } else if (!null(v)) {
            (void)expr(v);
          }
        }
      }
      if (!null(body)) block(body);
      break;
    }
    case K::TryStatement:
    case K::ExceptClause:
    case K::FinallyClause:
    case K::ElseClause:
      for (Node n_i : named_children(n)) {
        Node c = n_i;
        const K k = kind(c);
        if (k == K::Block) block(c);
        else if (k == K::ExceptClause || k == K::FinallyClause || k == K::ElseClause) stmt(c);
      }
      break;
    case K::FunctionDefinition: break;  // walked on its own
    case K::ClassDefinition: {
      // Class bodies run once at import: walk their statements (methods are walked on their own).
      Node body = field(n, "body");
      if (!null(body)) block(body);
      break;
    }
    case K::DecoratedDefinition: {
      Node def = field(n, "definition");
      if (!null(def)) stmt(def);
      break;
    }
    case K::ImportStatement:
    case K::ImportFromStatement:
    case K::FutureImportStatement:
    case K::GlobalStatement:
    case K::ContinueStatement:
    case K::BreakStatement:
    case K::Comment:
      break;
    case K::Block: block(n); break;
    default: generic(n); break;
  }
  --depth_;
}

namespace {
// Does a `case` pattern compare the subject with a value (`case 0:`, `case "a" | "b":`, `case Color.RED:`)?
// Captures (`case x:`), the wildcard and class patterns (which compare attributes) do not.
bool compares_value(Node pattern) {
  std::vector<Node> todo{pattern};
  while (!todo.empty()) {
    Node t = todo.back();
    todo.pop_back();
    const std::string_view type = python::type(t);
    if (type == "class_pattern" || type == "keyword_pattern") continue;
    switch (kind(t)) {
      case K::Integer: case K::Float: case K::String: case K::ConcatenatedString:
      case K::True: case K::False: case K::None:
        return true;
      default: break;
    }
    if (kind(t) == K::DottedName && named_count(t) > 1) return true;
    if (todo.size() < 256)
      for (Node c : named_children(t)) todo.push_back(c);
  }
  return false;
}
}  // namespace

// `match subject:` compares the subject with each value pattern (`case 0:` is `subject == 0`): on a GPU
// tensor each comparison is a branch on a device value, like an `if`. A capture (`case x:`) binds the
// subject; a guard (`case x if x > 0:`) is a condition.
void Walker::match_stmt(Node n) {
  Node body{};
  std::vector<Node> subjects;
  for (Node c : named_children(n)) {
    if (kind(c) == K::Block) body = c;
    else if (kind(c) != K::Comment) subjects.push_back(c);
  }
  bool compares = false;
  std::vector<Node> clauses;
  if (!null(body))
    for (Node c : named_children(body))
      if (type(c) == "case_clause") {
        clauses.push_back(c);
        for (Node part : named_children(c))
          if (type(part) == "case_pattern") compares = compares || compares_value(part);
      }
  Value subject;
  for (Node s : subjects) subject = compares && subjects.size() == 1 ? cond(s) : expr(s);
  for (Node clause : clauses) {
    for (Node part : named_children(clause)) {
      const std::string_view type = python::type(part);
      if (type == "case_pattern" && named_count(part) == 1 && kind(named(part, 0)) == K::DottedName &&
          named_count(named(part, 0)) == 1 && subjects.size() == 1)
        assign(named(named(part, 0), 0), subject);  // a capture
      else if (kind(part) == K::IfClause && named_count(part) > 0)
        (void)cond(named(part, 0));
      else if (kind(part) == K::Block)
        block(part);
    }
  }
}

void Walker::generic(Node n) {
  for (Node n_i : named_children(n)) {
    Node c = n_i;
    switch (kind(c)) {
      case K::Block: block(c); break;
      case K::ExpressionStatement: case K::IfStatement: case K::ForStatement: case K::WhileStatement:
      case K::ReturnStatement: case K::WithStatement: case K::TryStatement: case K::AssertStatement:
      case K::FunctionDefinition: case K::ClassDefinition: case K::DecoratedDefinition:
        stmt(c);
        break;
      case K::Comment: break;
      default:
        if (!null(first_child(c)) || kind(c) == K::Identifier) (void)expr(c);
        break;
    }
  }
}

// `step % N` as an interval: not string formatting (`"%d" % x`), and not gradient accumulation
// (`(step + 1) % accum_steps`): the optimizer step it guards runs every few steps, so what syncs there is hot.
bool Walker::interval_modulo(Node binop) const {
  if (text(field(binop, "operator")) != "%") return false;
  const K lk = kind(strip_parens(field(binop, "left")));
  if (lk == K::String || lk == K::ConcatenatedString) return false;
  return !contains_ci(text(field(binop, "right")), "accum");
}

Periodic Walker::periodic_kind(Node c, int depth) const {
  c = strip_parens(c);
  if (depth > 16) return Periodic::None;
  switch (kind(c)) {
    case K::NotOperator: {
      Periodic inner = periodic_kind(field(c, "argument"), depth + 1);
      if (inner == Periodic::WhenTrue) return Periodic::WhenFalse;
      if (inner == Periodic::WhenFalse) return Periodic::WhenTrue;
      return Periodic::None;
    }
    case K::BooleanOperator: {
      Node op = field(c, "operator");
      if (text(op) != "and") return Periodic::None;
      if (periodic_kind(field(c, "left"), depth + 1) == Periodic::WhenTrue ||
          periodic_kind(field(c, "right"), depth + 1) == Periodic::WhenTrue)
        return Periodic::WhenTrue;
      return Periodic::None;
    }
    case K::BinaryOperator: {
      if (!interval_modulo(c)) return Periodic::None;
      return Periodic::WhenFalse;  // `if step % N:` runs off the interval; its else branch on it
    }
    case K::ComparisonOperator: {
      if (named_count(c) != 2) return Periodic::None;
      bool modulo = false;
      for (std::uint32_t i = 0; i < 2; ++i) {
        Node o = strip_parens(named(c, i));
        if (kind(o) == K::BinaryOperator && interval_modulo(o)) modulo = true;
      }
      if (!modulo) return Periodic::None;
      for (Node op : children(c)) {
        if (is_named(op)) continue;
        const std::string_view t = text(op);
        if (t == "==") return Periodic::WhenTrue;
        if (t == "!=") return Periodic::WhenFalse;
      }
      return Periodic::None;
    }
    default: return Periodic::None;
  }
}

void Walker::if_stmt(Node n) {
  Node condition = field(n, "condition");
  (void)cond(condition);
  Periodic pk = periodic_kind(condition);
  const Env before = env_;
  std::vector<Env> outs;
  auto branch = [&](Node body, bool periodic, Node guard) {
    if (null(body)) return;
    if (periodic) {
      Frame g;
      g.kind = Frame::Kind::Guard;
      g.node = guard;
      frames_.push_back(g);
    }
    block(body);
    if (periodic) frames_.pop_back();
  };
  branch(field(n, "consequence"), pk == Periodic::WhenTrue, condition);
  outs.push_back(std::move(env_));
  bool has_else = false;
  // elif/else chain: each runs when the earlier conditions failed.
  bool off_interval = pk == Periodic::WhenFalse;
  Node guard = condition;
  for (Node n_i : named_children(n)) {
    Node c = n_i;
    const K k = kind(c);
    if (k == K::ElifClause) {
      env_ = before;
      Node ec = field(c, "condition");
      {
        if (off_interval) {
          Frame g;
          g.kind = Frame::Kind::Guard;
          g.node = guard;
          frames_.push_back(g);
        }
        (void)cond(ec);
        if (off_interval) frames_.pop_back();
      }
      Periodic ek = periodic_kind(ec);
      branch(field(c, "consequence"), off_interval || ek == Periodic::WhenTrue, off_interval ? guard : ec);
      outs.push_back(std::move(env_));
    } else if (k == K::ElseClause) {
      env_ = before;
      has_else = true;
      branch(field(c, "body"), off_interval, guard);
      outs.push_back(std::move(env_));
    }
  }
  if (!has_else) outs.push_back(before);
  env_ = std::move(outs[0]);
  for (std::size_t i = 1; i < outs.size(); ++i) {
    for (auto& [k, v] : outs[i]) {
      auto it = env_.find(k);
      if (it == env_.end()) env_.emplace(k, v);
      else it->second = join(it->second, v);
    }
  }
}

// The name a for loop iterates, through enumerate(...), tqdm(...), zip(...), iter(...).
Node iterated_name(Node right) {
  Node base = strip_parens(right);
  while (kind(base) == K::Call) {
    Node args = field(base, "arguments");
    if (null(args) || named_count(args) == 0) break;
    base = strip_parens(named(args, 0));
  }
  return base;
}

// Does the statement call a project function that holds a batch loop (train_one_epoch(...))?
bool Walker::calls_batch_loop(Node stmt_node) {
  Node e = stmt_node;
  if (kind(e) == K::ExpressionStatement && named_count(e) > 0) e = named(e, 0);
  if (kind(e) == K::Assignment || kind(e) == K::AugmentedAssignment) e = field(e, "right");
  e = strip_parens(e);
  if (kind(e) != K::Call) return false;
  Node fn = strip_parens(field(e, "function"));
  int callee = -1;
  if (kind(fn) == K::Identifier) {
    Value v = lookup(std::string(text(fn)));
    if (v.kind == VK::FuncRef) callee = v.id;
  } else if (kind(fn) == K::Attribute) {
    Node obj = strip_parens(field(fn, "object"));
    if (kind(obj) == K::Identifier) {
      Value v = lookup(std::string(text(obj)));
      if ((v.kind == VK::Instance || v.kind == VK::Module) && v.id >= 0)
        callee = p_.find_method(v.id, text(field(fn, "attribute")));
      else if (v.kind == VK::ModuleRef) {
        Value f = module_attr(v, text(field(fn, "attribute")));
        if (f.kind == VK::FuncRef) callee = f.id;
      }
    }
  }
  if (callee < 0) return false;
  return callee_sum(callee).batch_loop;
}

Frame Walker::loop_frame(Node loop, Node iterable_node, const Value& it, Node target, Node body) {
  Frame f;
  f.kind = Frame::Kind::Loop;
  f.node = loop;
  if (it.kind == VK::Params) {
    f.multiplier = true;
    f.params = true;
    f.count = it.count;
  } else if (it.kind == VK::Device) {
    f.multiplier = true;
  } else if (it.kind == VK::Container && it.element().holds_device()) {
    f.multiplier = true;
    f.count = it.count;
  }
  if (f.multiplier || null(body)) return f;
  // Once per epoch: this loop holds an inner batch loop (its own body then runs once per epoch).
  const bool epoch_loop = (!null(target) && contains_ci(text(target), "epoch")) ||
                          (!null(iterable_node) && contains_ci(text(iterable_node), "epoch"));
  std::vector<Node> todo{body};
  while (!todo.empty() && !f.epoch) {
    Node s = todo.back();
    todo.pop_back();
    for (Node s_i : named_children(s)) {
      Node c = s_i;
      const K k = kind(c);
      if (k == K::ForStatement) {
        Node right = field(c, "right");
        Node base = iterated_name(right);
        const std::string_view bt = text(base);
        const bool params_loop = contains_ci(text(right), "parameters()");
        bool data = batch_source_name(last_part(bt));
        if (!data && kind(base) == K::Identifier) {
          auto e = env_.find(std::string(bt));
          data = e != env_.end() && e->second.kind == VK::Loader;
        }
        if (data || (epoch_loop && !params_loop)) f.epoch = true;
      } else if (k == K::WhileStatement) {
        if (epoch_loop) f.epoch = true;
      } else if (k == K::ExpressionStatement && calls_batch_loop(c)) {
        f.epoch = true;
      } else if (k == K::Block || k == K::IfStatement || k == K::ElifClause || k == K::ElseClause ||
                 k == K::WithStatement || k == K::TryStatement || k == K::ExceptClause ||
                 k == K::FinallyClause) {
        todo.push_back(c);
      }
    }
  }
  return f;
}

void Walker::for_stmt(Node n) {
  Node right = field(n, "right");
  Value it = expr(right);
  Node left = field(n, "left");
  Node body = field(n, "body");
  Value elem = it.element();
  if (it.kind == VK::Loader || batch_source_name(last_part(text(iterated_name(right))))) sum().batch_loop = true;
  frames_.push_back(loop_frame(n, right, it, left, body));
  if (!null(left)) assign(left, elem);
  if (!null(body)) block(body);
  frames_.pop_back();
  Node alt = field(n, "alternative");
  if (!null(alt)) stmt(alt);
}

void Walker::while_stmt(Node n) {
  Node body = field(n, "body");
  frames_.push_back(loop_frame(n, field(n, "condition"), Value::of(VK::Host), Node{}, body));
  (void)cond(field(n, "condition"));
  if (!null(body)) block(body);
  frames_.pop_back();
  Node alt = field(n, "alternative");
  if (!null(alt)) stmt(alt);
}

// ============================================================================ expressions

Value Walker::expr(Node n) {
  if (null(n)) return {};
  if (depth_ > kMaxDepth) return {};
  ++depth_;
  Value v = expr_inner(n);
  --depth_;
  return v;
}

Value Walker::cond(Node n) {
  n = strip_parens(n);
  if (null(n)) return {};
  const K k = kind(n);
  if (k == K::BooleanOperator && depth_ <= kMaxDepth) {
    ++depth_;
    Value l = cond(field(n, "left"));
    Value r = cond(field(n, "right"));
    --depth_;
    return join(l, r);
  }
  if (k == K::NotOperator && depth_ <= kMaxDepth) {
    ++depth_;
    (void)cond(field(n, "argument"));
    --depth_;
    return Value::host();
  }
  Value v = expr(n);
  if (v.on_device()) {
    ConditionInfo ci{n, v};
    for (const RuleEntry& e : rule_table()) {
      if (!e.condition) continue;
      const Rule* rule = p_.catalog->find(e.id);
      if (rule) e.condition(*rule, ci, *this);
    }
  }
  return v;
}

Value Walker::expr_inner(Node n) {
  switch (kind(n)) {
    case K::Identifier: {
      const std::string name(text(n));
      Value v = lookup(name);
      if (v.kind == VK::Unknown && loader_name(name)) v = Value::of(VK::Loader, Confidence::Medium);
      return v;
    }
    case K::Attribute: return attribute(n);
    case K::Call: return call(n);
    case K::Subscript: return subscript(n, nullptr, nullptr);
    case K::BinaryOperator: return binary(n);
    case K::ComparisonOperator: return comparison(n);
    case K::BooleanOperator: {
      Value l = cond(field(n, "left"));
      Value r = expr(field(n, "right"));
      return join(l, r);
    }
    case K::NotOperator: (void)cond(field(n, "argument")); return Value::host();
    case K::UnaryOperator: {
      Value v = expr(field(n, "argument"));
      if (v.on_device() && text(field(n, "operator")) == "~") v.mask = true;
      return v;
    }
    case K::ConditionalExpression: {
      if (named_count(n) < 3) return {};
      (void)cond(named(n, 1));
      Value a = expr(named(n, 0));
      Value b = expr(named(n, 2));
      return join(a, b);
    }
    case K::ParenthesizedExpression:
      return named_count(n) > 0 ? expr(named(n, named_count(n) - 1)) : Value{};
    case K::String: return string(n);
    case K::ConcatenatedString:
      for (Node n_i : named_children(n)) (void)expr(n_i);
      return Value::host();
    case K::Integer:
    case K::Float: return Value::host(true);
    case K::True:
    case K::False:
    case K::None: return Value::host();
    case K::List:
    case K::Tuple:
    case K::Set:
    case K::ExpressionList:
    case K::PatternList: return sequence(n);
    case K::Dictionary: return dictionary(n);
    case K::ListComprehension:
    case K::SetComprehension:
    case K::DictionaryComprehension:
    case K::GeneratorExpression: return comprehension(n);
    case K::Lambda: return lambda(n);
    case K::Assignment: {
      Node right = field(n, "right");
      Value v = null(right) ? Value{} : expr(right);
      assign(field(n, "left"), v);
      return v;
    }
    case K::AugmentedAssignment: {
      Node left = field(n, "left");
      Value cur = expr(left);
      Value r = expr(field(n, "right"));
      Value v;
      if (cur.on_device() || r.on_device()) v = Value::device(cur.on_device() ? cur.conf : r.conf);
      else if (cur.kind == VK::Container) v = Value::container({join(cur.element(), r.element())}, false);
      else if (cur.kind == VK::Host && r.kind == VK::Host) v = Value::host(cur.number && r.number);
      else if (cur.kind == VK::Timer) v = cur;
      if (kind(strip_parens(left)) == K::Subscript) {
        const std::string key = path_key(field(strip_parens(left), "value"));
        if (!key.empty()) {
          auto it = env_.find(key);
          if (it != env_.end() && it->second.kind == VK::Container)
            it->second = Value::container({join(it->second.element(), v)}, false);
        }
      } else {
        assign(left, v);
      }
      return v;
    }
    case K::NamedExpression: {
      Value v = expr(field(n, "value"));
      assign(field(n, "name"), v);
      return v;
    }
    case K::Await:
    case K::ListSplat:
    case K::DictionarySplat:
      return named_count(n) > 0 ? expr(named(n, 0)) : Value{};
    case K::KeywordArgument: return expr(field(n, "value"));
    case K::Slice:
      for (Node n_i : named_children(n)) (void)expr(n_i);
      return Value::host();
    case K::Comment: return {};
    default:
      for (Node n_i : named_children(n)) (void)expr(n_i);
      return {};
  }
}

// A function or class defined at the top level of `fm`, as a reference; unknown otherwise.
Value defined_in(const FileModel& fm, const std::string& name, const std::string& dotted) {
  Value v;
  if (auto it = fm.top_funcs.find(name); it != fm.top_funcs.end()) v = Value::of(VK::FuncRef);
  if (auto it = fm.top_classes.find(name); it != fm.top_classes.end()) v = Value::of(VK::ClassRef);
  if (v.kind == VK::Unknown) return v;
  v.id = v.kind == VK::FuncRef ? fm.top_funcs.at(name) : fm.top_classes.at(name);
  v.name = dotted;
  return v;
}

Value Walker::lookup(const std::string& name, bool* bound) {
  if (bound) *bound = true;
  if (auto it = env_.find(name); it != env_.end()) return it->second;
  if (!in_module_) {
    const Env& g = p_.next.globals[file_];
    if (auto it = g.find(name); it != g.end()) return it->second;
  }
  if (Value v = defined_in(f_, name, name); v.kind != VK::Unknown) return v;
  if (auto it = f_.imports.find(name); it != f_.imports.end()) return binding_value(it->second);
  if (bound) *bound = false;
  return {};
}

Value Walker::binding_value(const Binding& b) {
  if (b.file < 0) return Value::module_ref(b.dotted);
  if (b.symbol.empty()) {
    Value v = Value::module_ref(b.dotted);
    v.id = b.file;
    return v;
  }
  return symbol_value(b.file, b.symbol, b.dotted);
}

Value Walker::symbol_value(int file, const std::string& symbol, const std::string& dotted) {
  if (Value v = defined_in(p_.files[file], symbol, dotted); v.kind != VK::Unknown) return v;
  if (file != file_) out_.read_globals.emplace(func_, file, symbol);
  const Env& g = file == file_ ? p_.next.globals[file] : p_.prev.globals[file];
  if (auto it = g.find(symbol); it != g.end()) return it->second;
  const int sub = p_.find_module(dotted, file_);
  if (sub >= 0 && sub != file) {
    Value v = Value::module_ref(dotted);
    v.id = sub;
    return v;
  }
  return {};
}

Value Walker::module_attr(const Value& mod, std::string_view attr) {
  std::string dotted = mod.name + "." + std::string(attr);
  if (mod.id >= 0) return symbol_value(mod.id, std::string(attr), dotted);
  const int pm = p_.module_index.empty() ? -1 : p_.find_module(dotted, file_);
  if (pm >= 0) {
    Value v = Value::module_ref(dotted);
    v.id = pm;
    return v;
  }
  return Value::module_ref(std::move(dotted));
}

std::string Walker::path_key(Node n) const {
  // `a.b.c` of identifiers only, built iteratively (attribute chains can be arbitrarily long).
  std::array<std::string_view, 16> parts;
  std::size_t count = 0;
  for (n = strip_parens(n); kind(n) == K::Attribute && count < parts.size(); n = strip_parens(field(n, "object")))
    parts[count++] = text(field(n, "attribute"));
  if (kind(n) != K::Identifier) return {};
  std::string key(text(n));
  while (count > 0) (key += '.') += parts[--count];
  return key;
}

Value Walker::attribute(Node n) {
  const std::string key = path_key(n);
  if (!key.empty()) {
    if (auto it = env_.find(key); it != env_.end()) return it->second;
  }
  Node obj = field(n, "object");
  const std::string_view name = text(field(n, "attribute"));
  Value recv = expr(obj);
  auto device_named = [&]() {
    if (!contains_ci(name, "device")) return Value{};
    Value v = Value::of(VK::DeviceSpec, Confidence::Medium);
    v.cuda = true;
    return v;
  };
  switch (recv.kind) {
    case VK::ModuleRef: return module_attr(recv, name);
    case VK::Device: {
      if (host_attribute(name)) return Value::host();
      Value v = Value::device(recv.conf, (name == "T" || name == "mT") && recv.mask);
      return v;
    }
    case VK::HostTensor: return host_attribute(name) ? Value::host() : Value::of(VK::HostTensor, recv.conf);
    case VK::Module:
    case VK::Instance: {
      if (recv.id >= 0) {
        if (const Value* a = class_attr(recv.id, std::string(name))) {
          Value v = *a;
          if (recv.kind == VK::Module && recv.cuda && (v.kind == VK::Module || v.kind == VK::HostTensor)) {
            v.kind = v.kind == VK::HostTensor ? VK::Device : VK::Module;
            v.cuda = true;
          }
          return v;
        }
      }
      if (Value d = device_named(); d.kind != VK::Unknown) return d;
      if (recv.kind == VK::Module) {
        if (name == "training") return Value::host();
        if (recv.cuda && (name == "weight" || name == "bias" || name.ends_with("_weight") || name.ends_with("_bias") ||
                          name == "running_mean" || name == "running_var"))
          return Value::device(recv.conf);
        Value m = Value::of(VK::Module, recv.conf);
        m.cuda = recv.cuda;
        return m;
      }
      return {};
    }
    case VK::Optimizer:
    case VK::Scaler:
    case VK::Loader:
    case VK::Host:
      return name == "dataset" ? Value{} : Value::host();
    default:
      if (loader_name(name)) return Value::of(VK::Loader, Confidence::Medium);
      return device_named();
  }
}

Value Walker::subscript(Node n, std::vector<Value>* index_out, Value* base_out) {
  Node base = field(n, "value");
  Value bv = expr(base);
  std::vector<Value> idx;
  std::vector<Node> idx_nodes;
  for (Node s : children(n))
    if (in_field(s, "subscript")) idx_nodes.push_back(s);
  for (Node s : idx_nodes) {
    if (kind(s) == K::Tuple || kind(s) == K::ExpressionList) {
      for (Node s_i : named_children(s)) idx.push_back(expr(s_i));
    } else {
      idx.push_back(expr(s));
    }
  }
  if (index_out) {
    *index_out = idx;
    if (base_out) *base_out = bv;
  } else {
    SubscriptInfo si{n, bv, idx, false, {}};
    for (const RuleEntry& e : rule_table()) {
      if (!e.subscript) continue;
      if (const Rule* rule = p_.catalog->find(e.id)) e.subscript(*rule, si, *this);
    }
  }
  switch (bv.kind) {
    case VK::Device: return Value::device(bv.conf, bv.mask);
    case VK::HostTensor: return Value::of(VK::HostTensor, bv.conf);
    case VK::Params: return Value::device(bv.conf);
    case VK::Host: return Value::host();
    case VK::Module: return bv;
    case VK::Container: {
      if (idx_nodes.size() == 1)
        if (std::optional<long> i = integer_literal(idx_nodes[0]); i && *i >= 0)
          return bv.item(static_cast<std::size_t>(*i));
      if (idx_nodes.size() == 1 && kind(idx_nodes[0]) == K::Slice && bv.positional && bv.items)
        if (std::optional<Value> part = slice_of(bv, idx_nodes[0])) return *part;
      return bv.element();
    }
    default: return {};
  }
}

Value Walker::binary(Node n) {
  Node left = field(n, "left");
  Node right = field(n, "right");
  const std::string_view op = text(field(n, "operator"));
  const K lk = kind(strip_parens(left));
  if (op == "%" && (lk == K::String || lk == K::ConcatenatedString)) {
    (void)expr(left);
    Value r = expr(right);
    if (r.holds_device()) {
      FormatInfo fi{n, right, r};
      for (const RuleEntry& e : rule_table()) {
        if (!e.format) continue;
        if (const Rule* rule = p_.catalog->find(e.id)) e.format(*rule, fi, *this);
      }
    }
    return Value::host();
  }
  Value l = expr(left);
  Value r = expr(right);
  if (op == "-" && l.kind == VK::Timer && r.kind == VK::Timer && l.id > r.id && r.id >= 0 &&
      static_cast<std::size_t>(l.id) < timers_.size()) {
    const auto& before = timers_[l.id].unsynced_before;
    if (std::find(before.begin(), before.end(), r.id) != before.end()) {
      TimingInfo ti{n, timers_[r.id].node};
      for (const RuleEntry& e : rule_table()) {
        if (!e.timing) continue;
        if (const Rule* rule = p_.catalog->find(e.id)) e.timing(*rule, ti, *this);
      }
    }
    return Value::host(true);
  }
  if (l.on_device() || r.on_device()) {
    gpu_work();
    Confidence c = l.on_device() && r.on_device() ? std::max(l.conf, r.conf) : (l.on_device() ? l.conf : r.conf);
    const bool mask = (op == "&" || op == "|" || op == "^") && (l.mask || r.mask);
    return Value::device(c, mask);
  }
  if (l.kind == VK::Host && r.kind == VK::Host) return Value::host(l.number && r.number);
  if (l.host_like() && r.host_like()) return Value::of(VK::HostTensor);
  if (l.kind == VK::Container && r.kind == VK::Container && op == "+") return Value::container({join(l.element(), r.element())}, false);
  return {};
}

Value Walker::comparison(Node n) {
  bool identity = false;
  for (Node op : children(n)) {
    if (is_named(op)) continue;
    const std::string_view t = text(op);
    if (t == "is" || t == "in" || t == "not" || t == "is not" || t == "not in") identity = true;
  }
  bool device = false, all_host = true;
  Confidence c = Confidence::Low;
  for (Node n_i : named_children(n)) {
    Value v = expr(n_i);
    if (v.on_device()) {
      device = true;
      c = std::max(c, v.conf);
    }
    if (!v.host_like()) all_host = false;
  }
  if (identity) return Value::host();
  if (device) return Value::device(c, true);
  return all_host ? Value::host() : Value{};
}

Value Walker::string(Node n) {
  for (Node n_i : named_children(n)) {
    Node c = n_i;
    if (kind(c) != K::Interpolation) continue;
    Node e = field(c, "expression");
    if (null(e) && named_count(c) > 0) e = named(c, 0);
    Value v = expr(e);
    // Nested format specs may hold interpolations too.
    for (Node c_j : named_children(c)) {
      Node spec = c_j;
      for (Node spec_k : named_children(spec))
        if (kind(spec_k) == K::Interpolation) (void)expr(field(spec_k, "expression"));
    }
    if (v.holds_device()) {
      FormatInfo fi{e, e, v};
      for (const RuleEntry& r : rule_table()) {
        if (!r.format) continue;
        if (const Rule* rule = p_.catalog->find(r.id)) r.format(*rule, fi, *this);
      }
    }
  }
  return named_count(n) == 2 || named_count(n) == 3 ? from_string_literal(text(n)) : Value::host();
}

Value Walker::sequence(Node n) {
  std::vector<Value> items;
  bool positional = true;
  for (Node n_i : named_children(n)) {
    Node c = n_i;
    if (kind(c) == K::Comment) continue;
    if (kind(c) == K::ListSplat) {
      items.push_back(expr(c).element());
      positional = false;
      continue;
    }
    items.push_back(expr(c));
  }
  return Value::container(std::move(items), positional);
}

Value Walker::dictionary(Node n) {
  std::vector<Value> items;
  for (Node n_i : named_children(n)) {
    Node c = n_i;
    if (kind(c) == K::Pair) {
      (void)expr(field(c, "key"));
      items.push_back(expr(field(c, "value")));
    } else if (kind(c) == K::DictionarySplat) {
      items.push_back(expr(c).element());
    }
  }
  Value v = Value::container(std::move(items), false);
  return v;
}

Value Walker::comprehension(Node n) {
  Node body = field(n, "body");
  Shadow shadow(env_);
  auto save_targets = [&](Node target) {
    std::vector<Node> todo{target};
    while (!todo.empty()) {
      Node t = todo.back();
      todo.pop_back();
      if (kind(t) == K::Identifier) {
        shadow.hide(std::string(text(t)));
      } else {
        for (Node t_i : named_children(t)) todo.push_back(t_i);
      }
    }
  };
  const std::size_t frames_at_start = frames_.size();
  std::int32_t count = -1;  // one `for` over an iterable of known length and no `if`: that length
  int clauses = 0;
  for (Node n_i : named_children(n)) {
    Node c = n_i;
    if (kind(c) == K::ForInClause || kind(c) == K::IfClause) ++clauses;
    if (kind(c) == K::ForInClause) {
      Node left = field(c, "left");
      Node right = field(c, "right");
      Value it = expr(right);
      count = it.count;
      Frame f = loop_frame(c, right, it, left, Node{});
      frames_.push_back(f);
      save_targets(left);
      assign(left, it.element());
    } else if (kind(c) == K::IfClause) {
      if (named_count(c) > 0) (void)cond(named(c, 0));
    }
  }
  Value v;
  if (kind(body) == K::Pair) {
    (void)expr(field(body, "key"));
    v = expr(field(body, "value"));
  } else {
    v = expr(body);
  }
  frames_.resize(frames_at_start);
  Value result = Value::container({v}, false);
  if (clauses == 1) result.count = count;
  return result;
}

Value Walker::lambda(Node n) {
  Frame b;
  b.kind = Frame::Kind::Boundary;
  b.node = n;
  frames_.push_back(b);
  {
    Shadow shadow(env_);  // parameters shadow outer names inside the body only
    for (Node p : named_children(field(n, "parameters"))) {
      if (kind(p) != K::Identifier) continue;
      const std::string name(text(p));
      shadow.hide(name);
      env_[name] = Value{};
    }
    (void)expr(field(n, "body"));
  }
  frames_.pop_back();
  return {};
}

// ============================================================================ calls

void Walker::collect_args(Node an, CallInfo& ci) {
  if (null(an)) return;
  if (kind(an) == K::GeneratorExpression) {
    ci.args.push_back(Arg{an, {}, expr(an)});
    return;
  }
  const NamedChildren children = named_children(an);
  ci.args.reserve(ci.args.size() + children.size());
  for (Node an_i : children) {
    Node a = an_i;
    switch (kind(a)) {
      case K::Comment: break;
      case K::KeywordArgument: {
        Node value = field(a, "value");
        ci.args.push_back(Arg{value, text(field(a, "name")), expr(value)});
        break;
      }
      case K::ListSplat: ci.args.push_back(Arg{a, "*", expr(a)}); break;
      case K::DictionarySplat: ci.args.push_back(Arg{a, "**", expr(a)}); break;
      default: ci.args.push_back(Arg{a, {}, expr(a)}); break;
    }
  }
}

bool Walker::timing_function(const std::string& q) const {
  for (const Rule* r : p_.catalog->rules_for_api(Language::Python, "functions", q)) {
    const RuleEntry* e = find_rule_entry(r->id);
    if (e && e->timing) return true;
  }
  return false;
}

void Walker::dispatch_call(CallInfo& ci) {
  auto run = [&](std::string_view kind, std::string_view name) {
    if (name.empty()) return;
    for (const Rule* r : p_.catalog->rules_for_api(Language::Python, kind, name)) {
      ci.api_kind = kind;
      const RuleEntry* e = find_rule_entry(r->id);
      if (e && e->call) e->call(*r, ci, *this);
      else if (!e || !e->timing) check_declared_api(*r, ci, *this);
    }
  };
  auto any = [&](std::string_view kind, std::string_view name) {
    return !name.empty() && !p_.catalog->rules_for_api(Language::Python, kind, name).empty();
  };
  if (!ci.method.empty()) {
    run("methods", ci.method);
  } else if (!ci.qualified.empty()) {
    // A function declared by its bare name ("to_float") matches wherever it was imported from.
    if (any("functions", ci.qualified)) run("functions", ci.qualified);
    else run("functions", last_part(ci.qualified));
  } else if (!ci.builtin.empty()) {
    if (any("builtins", ci.builtin)) run("builtins", ci.builtin);
    else run("functions", ci.builtin);
  }
}

Value Walker::call(Node n) {
  Node fn = strip_parens(field(n, "function"));
  CallInfo ci;
  ci.node = n;
  Value callee;
  bool is_method = false;
  if (kind(fn) == K::Attribute) {
    Node obj = field(fn, "object");
    const std::string_view m = text(field(fn, "attribute"));
    Value rv = expr(obj);
    if (rv.kind == VK::ModuleRef) {
      callee = module_attr(rv, m);
    } else {
      is_method = true;
      ci.receiver = obj;
      ci.method = m;
      ci.recv = std::move(rv);
    }
  } else if (kind(fn) == K::Identifier) {
    bool bound = false;
    callee = lookup(std::string(text(fn)), &bound);
    if (!bound) ci.builtin = text(fn);
  } else {
    callee = expr(fn);
  }
  if (!is_method && (callee.kind == VK::ModuleRef || callee.kind == VK::FuncRef || callee.kind == VK::ClassRef))
    ci.qualified = callee.name;
  collect_args(field(n, "arguments"), ci);

  bool work = false, syncs = false;
  Value r = call_result(ci, callee, is_method, work, syncs);
  if (r.on_device() || ci.recv.on_device() || (ci.recv.kind == VK::Module && ci.recv.cuda) ||
      ci.recv.kind == VK::Optimizer || ci.recv.kind == VK::Scaler || ci.any_arg_holds_device())
    work = true;
  if (work) gpu_work();
  if (syncs) synced();
  dispatch_call(ci);

  // In-place effects on the receiver: modules moved to a device, lists that collect values.
  const bool to_device = is_method && (ci.method == "to" || ci.method == "cuda");
  const bool collects = is_method && !to_device && one_of(ci.method, {"append", "add", "insert", "extend", "appendleft"}) && !ci.args.empty();
  const std::string recv_key = to_device || collects ? path_key(ci.receiver) : std::string();
  if (!recv_key.empty()) {
    if (to_device &&
        (ci.recv.kind == VK::Module || ci.recv.kind == VK::Instance ||
         (ci.recv.kind == VK::Unknown && stmt_call_ == node_id(n)))) {
      Confidence c = Confidence::High;
      const bool cuda = ci.method == "cuda" || cuda_target(ci.arg(0, "device"), *this, c);
      if (cuda) {
        Value m = ci.recv;
        if (m.kind != VK::Module) {
          m.kind = VK::Module;
          m.conf = ci.recv.kind == VK::Unknown ? Confidence::Medium : c;
        }
        m.cuda = true;
        Node target = ci.receiver;
        assign(target, m);
        if (stmt_call_ == node_id(n)) r = m;
      }
    } else if (collects) {
      Value added = ci.method == "extend" ? ci.args.back().value.element() : ci.args.back().value;
      auto it = env_.find(recv_key);
      if (it != env_.end() && it->second.kind == VK::Container) {
        it->second = Value::container({join(it->second.element(), added)}, false);
      } else if (it == env_.end() || it->second.kind == VK::Unknown) {
        env_[recv_key] = Value::container({added}, false);
      }
    }
  }
  return r;
}

Value Walker::project_call(int callee, const CallInfo& ci, bool bound, bool& work, bool& syncs) {
  CallEdge e;
  e.caller = func_;
  e.callee = callee;
  e.call = span(ci.node);
  e.lex = lexical();
  e.bound_self = bound;
  for (const Arg& a : ci.args) {
    if (a.keyword.empty()) e.positional.push_back(a.value);
    else if (a.keyword != "*" && a.keyword != "**") e.keywords.emplace_back(std::string(a.keyword), a.value);
  }
  out_.edges.push_back(std::move(e));
  const FuncSummary& s = callee_sum(callee);
  if (s.gpu_work) work = true;
  if (s.syncs) syncs = true;
  return s.returns ? s.ret : Value{};
}

Value Walker::module_call(const Value& mod, const CallInfo& ci, bool& work, bool& syncs) {
  Value ret;
  if (mod.id >= 0) {
    int fwd = p_.find_method(mod.id, "forward");
    if (fwd < 0) fwd = p_.find_method(mod.id, "__call__");
    if (fwd >= 0) ret = project_call(fwd, ci, true, work, syncs);
  }
  if (mod.kind == VK::Module && mod.cuda) return Value::device(mod.conf);
  for (const Arg& a : ci.args)
    if (a.value.holds_device()) return Value::device(a.value.device_conf());
  return ret;
}

Value Walker::call_result(CallInfo& ci, const Value& callee, bool is_method, bool& work, bool& syncs) {
  if (!ci.builtin.empty()) return builtin_result(ci);
  if (is_method) return method_result(ci, work, syncs);
  const bool dangling = (callee.kind == VK::FuncRef || callee.kind == VK::ClassRef) && callee.id < 0;
  switch (dangling ? VK::Unknown : callee.kind) {
    case VK::FuncRef: return project_call(callee.id, ci, false, work, syncs);
    case VK::ClassRef: {
      const int init = p_.find_method(callee.id, "__init__");
      if (init >= 0) (void)project_call(init, ci, true, work, syncs);
      Value v = Value::of(p_.classes[callee.id].is_module ? VK::Module : VK::Instance);
      v.id = callee.id;
      if (v.kind == VK::Module) {
        const Value* params = class_attr(callee.id, kParametersAttr);
        v.count = params ? params->count : -1;
      }
      return v;
    }
    case VK::ModuleRef: return external_result(ci, callee.name);
    case VK::Module:
    case VK::Instance: return module_call(callee, ci, work, syncs);
    default: {
      // An unknown callable: a device result only when it looks like a model or a loss.
      Node fn = strip_parens(field(ci.node, "function"));
      if (callee.kind != VK::Device && !tensor_callable_name(last_part(text(fn)))) return {};
      Confidence best = Confidence::Low;
      bool dev = false;
      for (const Arg& a : ci.args)
        if (a.value.holds_device()) {
          dev = true;
          best = std::max(best, a.value.device_conf());
        }
      if (dev) return Value::device(std::min(best, Confidence::Medium));
      return {};
    }
  }
}

Value Walker::builtin_result(const CallInfo& ci) {
  const std::string_view b = ci.builtin;
  const Arg* a0 = ci.positional(0);
  const Value first = a0 ? a0->value : Value{};
  if (one_of(b, {"len", "int", "float", "round", "hash", "id", "ord"})) return Value::host(true);
  if (one_of(b, {"str", "repr", "bool", "print", "isinstance", "hasattr", "callable", "chr", "format",
                 "input", "issubclass", "complex"}))
    return Value::host();
  if (b == "abs") return first;
  if (b == "range") {
    Value v = Value::container({Value::host(true)}, false);
    auto lit = [&](std::size_t i) -> long {
      const Arg* a = ci.positional(i);
      const std::optional<long> v = a ? integer_literal(a->node) : std::nullopt;
      return v ? *v : -1;
    };
    const std::size_t n = ci.args.size();
    if (n == 1 && lit(0) >= 0) v.count = static_cast<std::int32_t>(lit(0));
    if (n == 2 && lit(0) >= 0 && lit(1) >= lit(0)) v.count = static_cast<std::int32_t>(lit(1) - lit(0));
    return v;
  }
  if (b == "enumerate") {
    Value v = Value::container({Value::container({Value::host(true), first.element()}, true)}, false);
    v.count = first.count;
    if (first.kind == VK::Params) v.count = first.count;
    return v;
  }
  if (b == "zip") {
    std::vector<Value> parts;
    std::int32_t count = -1;
    bool known = true;
    for (const Arg& a : ci.args) {
      if (!a.keyword.empty()) continue;
      parts.push_back(a.value.element());
      known = known && a.value.count >= 0;
      if (known) count = count < 0 ? a.value.count : std::min(count, a.value.count);
    }
    const bool counted = known && !parts.empty();
    Value v = Value::container({Value::container(std::move(parts), true)}, false);
    if (counted) v.count = count;  // as long as the shortest
    return v;
  }
  if (one_of(b, {"list", "tuple", "set", "sorted", "reversed", "frozenset", "iter"})) {
    if (first.kind == VK::Params || first.kind == VK::Container || first.kind == VK::Loader) return first;
    if (first.kind == VK::Unknown) return b == "iter" ? Value{} : Value::container({Value{}}, false);
    return Value::container({first.element()}, false);
  }
  if (b == "next") return first.element();
  if (b == "sum") {
    Value e = first.element();
    if (e.on_device()) return Value::device(e.conf);
    return e.kind == VK::Host ? Value::host(true) : Value{};
  }
  if (b == "max" || b == "min") {
    if (ci.args.size() == 1) return first.element();
    Value v = first;
    for (std::size_t i = 1; i < ci.args.size(); ++i)
      if (ci.args[i].keyword.empty()) v = join(v, ci.args[i].value);
    return v;
  }
  if (b == "dict") {
    std::vector<Value> items;
    for (const Arg& a : ci.args) items.push_back(a.keyword.empty() ? a.value.element() : a.value);
    return Value::container(std::move(items), false);
  }
  return {};
}

Value Walker::external_result(const CallInfo& ci, const std::string& q) {
  if (timing_function(q)) {
    TimerState t;
    t.node = ci.node;
    for (std::size_t i = 0; i < timers_.size(); ++i)
      if (timers_[i].work) t.unsynced_before.push_back(static_cast<int>(i));
    timers_.push_back(std::move(t));
    Value v = Value::of(VK::Timer);
    v.id = static_cast<std::int32_t>(timers_.size() - 1);
    return v;
  }
  const std::string_view last = last_part(q);
  const Arg* a0 = ci.positional(0);
  auto any_device = [&](Confidence& c) {
    bool dev = false;
    c = Confidence::Low;
    for (const Arg& a : ci.args)
      if (a.value.holds_device()) {
        dev = true;
        c = std::max(c, a.value.device_conf());
      }
    return dev;
  };
  const bool upper = !last.empty() && std::isupper(static_cast<unsigned char>(last[0]));
  if (q.starts_with("torch.")) {
    if (q == "torch.device") {
      if (a0 && a0->value.kind == VK::DeviceSpec) return a0->value;
      Value v = Value::of(VK::DeviceSpec, Confidence::Medium);
      v.cuda = !a0 || text(a0->node).find("cpu") == std::string_view::npos;
      if (a0 && text(a0->node).find("cuda") != std::string_view::npos) v.conf = Confidence::High;
      return v;
    }
    if (one_of(last, {"Stream", "Event", "current_stream", "default_stream", "ExternalStream"}))
      return Value::of(VK::Stream);
    if (last == "GradScaler") return Value::of(VK::Scaler);
    if (last == "DataLoader") return Value::of(VK::Loader);
    if (q.starts_with("torch.optim.") && upper && q.find("lr_scheduler") == std::string::npos &&
        q.find("swa_utils") == std::string::npos) {
      Value v = Value::of(VK::Optimizer);
      const Arg* fused = ci.keyword("fused");
      v.fused = is_true_literal(fused, *this);
      return v;
    }
    if (q.starts_with("torch.nn.") && upper && !q.starts_with("torch.nn.functional.") &&
        !q.starts_with("torch.nn.utils.")) {
      Value v = Value::of(VK::Module);
      v.count = torch_module_parameters(ci, last);
      return v;
    }
    if (q.starts_with("torch.cuda.") || q.starts_with("torch.backends.") || q.starts_with("torch.distributed."))
      return Value::host();
    if (factory(last)) {
      Confidence c = Confidence::High;
      const Arg* dtype = ci.keyword("dtype");
      const bool boolean = dtype && last_part(text(dtype->node)) == "bool";
      if (cuda_target(ci.keyword("device"), *this, c)) return Value::device(c, boolean);
      if (last.ends_with("_like") && a0 && a0->value.on_device() && !ci.keyword("device"))
        return Value::device(a0->value.conf);
      return Value::of(VK::HostTensor);
    }
    if (one_of(last, {"equal", "allclose", "is_tensor", "numel", "is_floating_point", "is_complex",
                      "is_grad_enabled", "get_default_dtype", "manual_seed", "is_nonzero"}))
      return Value::host();
    Confidence c;
    if (any_device(c)) {
      const bool mask = mask_method(last) || one_of(last, {"isnan", "isinf", "isfinite", "logical_and",
                                                           "logical_or", "logical_not", "eq", "ne", "gt", "lt",
                                                           "ge", "le", "any", "all"});
      return Value::device(c, mask);
    }
    for (const Arg& a : ci.args)
      if (a.value.kind == VK::HostTensor) return Value::of(VK::HostTensor);
    return {};
  }
  if (q.starts_with("numpy.")) return Value::of(VK::HostTensor);
  if (q.starts_with("math.") || q.starts_with("time.") || q.starts_with("random.") ||
      q.starts_with("statistics.") || q.starts_with("os."))
    return Value::host(true);
  if (q == "logging.getLogger") return Value::of(VK::Logger);
  if (last == "tqdm" || last == "trange") return a0 ? a0->value : Value{};
  if (last == "DataLoader") return Value::of(VK::Loader);
  if (q == "copy.deepcopy" || q == "copy.copy") return a0 ? a0->value : Value{};
  if (last == "from_pretrained") return Value::of(VK::Module, Confidence::Medium);
  Confidence c;
  if (any_device(c) && !q.starts_with("wandb.") && !q.starts_with("mlflow.") && !q.starts_with("logging."))
    return Value::device(std::min(c, Confidence::Medium));
  return {};
}

// A decimal integer literal (`3`, `10_000`, `-1`), else nothing.
std::optional<long> Walker::integer_literal(Node n) const {
  n = strip_parens(n);
  bool negative = false;
  if (kind(n) == K::UnaryOperator && text(field(n, "operator")) == "-") {
    negative = true;
    n = strip_parens(field(n, "argument"));
  }
  if (kind(n) != K::Integer) return std::nullopt;
  std::string digits;
  for (char ch : text(n))
    if (ch != '_') digits += ch;
  char* end = nullptr;
  const long v = std::strtol(digits.c_str(), &end, 10);
  if (digits.empty() || end == nullptr || *end != '\0') return std::nullopt;
  return negative ? -v : v;
}

// `items[a:b]` of a tuple or list literal, with integer literals (or nothing) as bounds and no step.
std::optional<Value> Walker::slice_of(const Value& c, Node slice) const {
  const auto size = static_cast<long>(c.items->size());
  std::array<long, 2> bounds{0, size};
  std::size_t part = 0;  // 0: start, 1: stop, 2: step
  for (Node ch : children(slice)) {
    if (!is_named(ch)) {
      if (text(ch) == ":") ++part;
      continue;
    }
    const std::optional<long> v = integer_literal(ch);
    if (part > 1 || !v) return std::nullopt;
    bounds[part] = std::clamp(*v < 0 ? *v + size : *v, 0L, size);
  }
  std::vector<Value> items;
  for (long i = bounds[0]; i < bounds[1]; ++i) items.push_back((*c.items)[static_cast<std::size_t>(i)]);
  return Value::container(std::move(items), true);
}

// Parameter tensors of `torch.nn.<layer>(...)`: containers sum their items' counts, other layers come
// from the table in nn_layers.cpp; -1 when unknown.
int Walker::torch_module_parameters(const CallInfo& ci, std::string_view layer) const {
  auto module_count = [](const Value& v) { return v.kind == VK::Module ? v.count : -1; };
  auto sum_items = [&](const Value& c) {
    if (c.kind != VK::Container || !c.items) return -1;
    if (!c.positional) {  // a comprehension: its length times its element's count
      const int each = c.items->size() == 1 ? module_count(c.items->front()) : -1;
      return c.count >= 0 && each >= 0 ? c.count * each : -1;
    }
    int total = 0;
    for (const Value& item : *c.items) {
      const int n = module_count(item);
      if (n < 0) return -1;
      total += n;
    }
    return total;
  };
  // An empty container is usually filled later (append, add_module): unknown.
  if ((layer == "Sequential" || layer == "ModuleList" || layer == "ModuleDict") && ci.args.empty()) return -1;
  if (layer == "Sequential") {
    int total = 0;
    for (const Arg& a : ci.args) {
      const int n = a.keyword.empty() ? module_count(a.value) : a.keyword == "*" ? sum_items(a.value) : -1;
      if (n < 0) return -1;
      total += n;
    }
    return total;
  }
  if (layer == "ModuleList") {
    const Arg* a = ci.positional(0);
    return ci.args.size() == 1 && a ? sum_items(a->value) : -1;
  }
  for (const Arg& a : ci.args)
    if (a.keyword == "*" || a.keyword == "**") return -1;  // positions unknown
  return nn_layer_parameters(layer, [&](std::string_view keyword, int position) {
    const Arg* a = ci.arg(static_cast<std::size_t>(position), keyword);
    if (!a) return LayerArg{};
    Node n = strip_parens(a->node);
    switch (kind(n)) {
      case K::True: return LayerArg{LayerArg::Kind::Literal, 1};
      case K::False:
      case K::None: return LayerArg{LayerArg::Kind::Literal, 0};
      case K::Integer:
        if (std::optional<long> v = integer_literal(n)) return LayerArg{LayerArg::Kind::Literal, *v};
        break;
      default: break;
    }
    return LayerArg{LayerArg::Kind::Other, 0};
  });
}

Value Walker::method_result(CallInfo& ci, bool& work, bool& syncs) {
  const Value& rv = ci.recv;
  const std::string_view m = ci.method;
  if ((rv.kind == VK::Instance || rv.kind == VK::Module) && rv.id >= 0) {
    const int target = p_.find_method(rv.id, m);
    if (target >= 0) {
      Value r = project_call(target, ci, true, work, syncs);
      if (r.kind != VK::Unknown || rv.kind == VK::Instance) return r;
    } else if (const Value* a = class_attr(rv.id, std::string(m))) {
      if (a->kind == VK::Module || a->kind == VK::Instance) {
        Value mod = *a;
        if (rv.kind == VK::Module && rv.cuda) mod.cuda = true;
        return module_call(mod, ci, work, syncs);
      }
      if (a->kind == VK::FuncRef && a->id >= 0) return project_call(a->id, ci, false, work, syncs);
    }
  }
  // Catalog APIs that read a value on the host return host values.
  auto syncing_method = [&]() {
    for (const Rule* r : p_.catalog->rules_for_api(Language::Python, "methods", m)) {
      if (r->id == "SYNC001" || r->id == "SYNC002" || r->id == "SYNC004") return true;
    }
    return false;
  };
  if ((rv.kind == VK::Device || rv.kind == VK::Module || rv.kind == VK::Unknown) &&
      (m == "item" || m == "tolist" || host_method(m) || syncing_method()))
    return Value::host(true);
  Confidence tc = Confidence::High;
  if (m == "parameters" || m == "named_parameters") {
    Value v = Value::of(VK::Params, rv.kind == VK::Module && rv.cuda ? rv.conf : Confidence::Medium);
    v.named_params = m == "named_parameters";
    if (rv.kind == VK::Module) v.count = rv.count;  // parameter tensors, when known
    return v;
  }
  switch (rv.kind) {
    case VK::Device: {
      if (m == "cpu" || m == "numpy") return Value::of(VK::HostTensor);
      if (m == "to") {
        if (cpu_target(ci.arg(0, "device"), *this)) return Value::of(VK::HostTensor);
        return Value::device(rv.conf);
      }
      if (m == "cuda") return Value::device(rv.conf);
      if (host_method(m) || syncing_method() || m == "tolist" || m == "item") return Value::host(true);
      if (mask_method(m)) return Value::device(rv.conf, true);
      return Value::device(rv.conf, rv.mask && one_of(m, {"clone", "detach", "T", "t", "view", "reshape",
                                                          "flatten", "squeeze", "unsqueeze", "contiguous"}));
    }
    case VK::HostTensor: {
      // A host boolean mask stays a mask once copied to the GPU.
      if (m == "cuda") return Value::device(rv.conf == Confidence::High ? Confidence::High : Confidence::Medium, rv.mask);
      if (m == "to") {
        if (cuda_target(ci.arg(0, "device"), *this, tc)) return Value::device(std::min(tc, Confidence::High), rv.mask);
        Value v = Value::of(VK::HostTensor, rv.conf);
        const Arg* dtype = ci.arg(0, "dtype");
        v.mask = rv.mask || (dtype && last_part(text(dtype->node)) == "bool");
        return v;
      }
      if (m == "item" || m == "tolist" || host_method(m)) return Value::host(true);
      Value v = Value::of(VK::HostTensor, rv.conf);
      v.mask = mask_method(m);
      return v;
    }
    case VK::Module:
      if (m == "to" || m == "cuda") {
        Value v = rv;
        if (m == "cuda" || cuda_target(ci.arg(0, "device"), *this, tc)) v.cuda = true;
        return v;
      }
      if (m == "parameters" || m == "named_parameters" || m == "buffers") {
        Value v = Value::of(VK::Params, rv.cuda ? rv.conf : Confidence::Medium);
        v.named_params = m == "named_parameters";
        if (m != "buffers") v.count = rv.count;
        return v;
      }
      if (module_method(m)) return rv;
      if (one_of(m, {"state_dict", "modules", "children", "named_modules", "zero_grad", "register_buffer",
                     "load_state_dict", "register_forward_hook"}))
        return {};
      if (rv.cuda) return Value::device(rv.conf);
      return {};
    case VK::Params: return rv;
    case VK::Loader: return m == "__iter__" ? rv : Value{};
    case VK::Container:
      if (one_of(m, {"items", "values", "copy", "pop", "get", "popleft", "__getitem__"})) {
        if (m == "pop" || m == "get" || m == "popleft") return rv.element();
        if (m == "items") return Value::container({Value::container({Value::host(), rv.element()}, true)}, false);
        return rv;
      }
      return {};
    case VK::Optimizer:
      if (m == "step" || m == "zero_grad") work = true;
      return Value::host();
    case VK::Scaler:
      if (m == "scale") return ci.positional(0) ? ci.positional(0)->value : Value{};
      return Value::host();
    case VK::Stream: return m == "record_event" ? Value::of(VK::Stream) : Value::host();
    case VK::Logger: return Value::host();
    case VK::Host:
    case VK::DeviceSpec: return Value::host();
    default: break;
  }
  // Unknown receiver.
  if (m == "from_pretrained") return Value::of(VK::Module, Confidence::Medium);
  if (m == "prepare" && contains_ci(text(ci.receiver), "accelerator")) {
    // accelerate's prepare() places models (and the batches of prepared loaders) on the device.
    std::vector<Value> prepared;
    for (const Arg& a : ci.args) {
      if (!a.keyword.empty()) continue;
      Value v = a.value;
      if (v.kind == VK::Module || v.kind == VK::Unknown) {
        v = Value::of(VK::Module, Confidence::Medium);
        v.cuda = true;
        if (a.value.kind == VK::Module) v.id = a.value.id;
      }
      prepared.push_back(v);
    }
    if (prepared.size() == 1) return prepared[0];
    return Value::container(std::move(prepared), true);
  }
  if ((m == "to" || m == "cuda") && kind(strip_parens(ci.receiver)) == K::Call) {
    // `Net(...).to(device)`: a module built by a class this analysis cannot see.
    Node ctor = strip_parens(field(strip_parens(ci.receiver), "function"));
    const std::string_view name = last_part(text(ctor));
    if (!name.empty() && std::isupper(static_cast<unsigned char>(name[0]))) {
      Value v = Value::of(VK::Module, Confidence::Medium);
      v.cuda = m == "cuda" || cuda_target(ci.arg(0, "device"), *this, tc);
      return v;
    }
  }
  if (m == "parameters" || m == "named_parameters") {
    Value v = Value::of(VK::Params, Confidence::Medium);
    v.named_params = m == "named_parameters";
    return v;
  }
  if (m == "item" || m == "tolist" || host_method(m) || syncing_method()) return Value::host(true);
  if (m == "cpu" || m == "numpy") return Value::of(VK::HostTensor);
  if (m == "cuda") return Value::device(Confidence::Medium);
  if (m == "to" && cuda_target(ci.arg(0, "device"), *this, tc)) return Value::device(Confidence::Medium);
  if (m == "synchronize" || m == "record" || m == "elapsed_time" || m == "format" || m == "join" ||
      m == "startswith" || m == "endswith")
    return Value::host();
  Confidence best = Confidence::Low;
  bool dev = false;
  for (const Arg& a : ci.args)
    if (a.value.holds_device()) {
      dev = true;
      best = std::max(best, a.value.device_conf());
    }
  if (dev && tensor_callable_name(m)) return Value::device(std::min(best, Confidence::Medium));
  return {};
}

// ============================================================================ assignment

void Walker::assign(Node target, const Value& v) {
  target = strip_parens(target);
  if (null(target)) return;
  switch (kind(target)) {
    case K::Identifier: env_[std::string(text(target))] = v; return;
    case K::Attribute: {
      const std::string key = path_key(target);
      if (key.empty()) {
        (void)expr(field(target, "object"));
        return;
      }
      env_[key] = v;
      Node obj = strip_parens(field(target, "object"));
      const FuncInfo& fi = p_.funcs[func_];
      if (kind(obj) == K::Identifier && fi.cls >= 0 && fi.bound_first && !fi.params.empty() &&
          text(obj) == fi.params[0]) {
        std::string name(text(field(target, "attribute")));
        add_class_attr(p_.next.class_attrs[fi.cls], name, v);
        out_.attr_writes.push_back(FileOutput::AttrWrite{func_, fi.cls, std::move(name), v});
      }
      return;
    }
    case K::Subscript: {
      std::vector<Value> idx;
      Value base;
      (void)subscript(target, &idx, &base);
      SubscriptInfo si{target, base, idx, true, v};
      for (const RuleEntry& e : rule_table()) {
        if (!e.subscript) continue;
        if (const Rule* rule = p_.catalog->find(e.id)) e.subscript(*rule, si, *this);
      }
      const std::string key = path_key(field(target, "value"));
      if (!key.empty()) {
        auto it = env_.find(key);
        if (it != env_.end() && it->second.kind == VK::Container)
          it->second = Value::container({join(it->second.element(), v)}, false);
      }
      return;
    }
    case K::PatternList:
    case K::TuplePattern:
    case K::ListPattern:
    case K::ExpressionList:
    case K::Tuple:
    case K::List: {
      std::size_t pos = 0;
      for (Node target_i : named_children(target)) {
        Node t = target_i;
        if (kind(t) == K::Comment) continue;
        if (kind(t) == K::ListSplatPattern || kind(t) == K::ListSplat) {
          if (named_count(t) > 0) assign(named(t, 0), Value::container({v.element()}, false));
        } else {
          assign(t, v.item(pos));
        }
        ++pos;
      }
      return;
    }
    default: return;
  }
}

// ============================================================================ context and reports

HotInfo Walker::hot_info(bool lexical_only) const {
  HotInfo h;
  long reads = 1;
  bool reads_known = true;
  for (auto it = frames_.rbegin(); it != frames_.rend(); ++it) {
    const Frame& f = *it;
    if (f.kind == Frame::Kind::Guard) {
      if (!h.periodic) {
        h.periodic = true;
        h.guard = f.node;
      }
      continue;
    }
    if (f.kind == Frame::Kind::Boundary) break;  // a lambda: its own function's heat
    if (f.kind == Frame::Kind::Cold) return HotInfo{};
    if (f.multiplier) {
      h.multiplied = true;
      h.params = h.params || f.params;
      if (f.count >= 0) reads *= f.count;
      else reads_known = false;
      continue;
    }
    h.in_loop = true;
    h.loop = f.node;
    h.heat = f.epoch ? Heat::Epoch : Heat::Hot;
    break;
  }
  if (!h.in_loop) {
    h.heat = lexical_only ? Heat::Cold : p_.heat[func_].heat;
  }
  if (h.periodic && h.heat == Heat::Hot) h.heat = Heat::Periodic;
  if (h.multiplied) h.reads = reads_known ? reads : -1;
  if (h.heat == Heat::Cold) h.multiplied = false;
  return h;
}

Lexical Walker::lexical() const {
  HotInfo h = hot_info(true);
  Lexical l;
  l.heat = h.heat;
  l.in_loop = h.in_loop;
  if (h.in_loop) l.loop = span(h.loop);
  l.periodic = h.periodic;
  if (h.periodic) l.guard = span(h.guard);
  return l;
}

void Walker::chain(int fn, std::string& called, std::vector<RelatedLocation>& related, Heat heat) const {
  std::unordered_set<int> seen;
  int cur = fn;
  while (cur >= 0 && seen.insert(cur).second && seen.size() < 32) {
    const FuncHeat& fh = p_.heat[cur];
    if (fh.callback && fh.via < 0) {
      const FuncInfo& fi = p_.funcs[cur];
      if (called.empty()) called = "`" + fi.name + "` is a per-step callback";
      else called += " in per-step callback `" + fi.name + "`";
      related.push_back({fi.name_range, "per-step callback `" + fi.name + "`"});
      return;
    }
    if (fh.via < 0 || static_cast<std::size_t>(fh.via) >= p_.edges.size()) return;
    const CallEdge& e = p_.edges[fh.via];
    const SourceRange call = p_.range(e, e.call), loop = p_.range(e, e.lex.loop), guard = p_.range(e, e.lex.guard);
    std::string msg = "called from " + p_.where(call);
    if (e.lex.in_loop) msg += " inside loop at " + p_.where(loop);
    if (e.lex.periodic && heat == Heat::Periodic) msg += " under the periodic guard at " + p_.where(guard);
    related.push_back({call, msg});
    if (e.lex.periodic) related.push_back({guard, "periodic guard at " + p_.where(guard)});
    if (e.lex.in_loop) {
      called = msg;
      related.push_back({loop, "inside loop at " + p_.where(loop)});
      return;
    }
    called = msg;
    cur = e.caller;
  }
}

std::string Walker::phrase(const HotInfo& h, std::vector<RelatedLocation>& related) const {
  std::string reads;
  if (h.multiplied) {
    if (h.reads >= 0) reads = std::to_string(h.reads) + (h.reads == 1 ? " read per step" : " reads per step");
    else reads = h.params ? "one read per parameter per step" : "one read per element per step";
  }
  std::string s;
  if (h.periodic) {
    related.push_back({src_.range(h.guard), "periodic guard at " + where(h.guard)});
  }
  std::string loop_at;
  if (h.in_loop) {
    loop_at = where(h.loop);
    related.push_back({src_.range(h.loop), "inside loop at " + loop_at});
  }
  std::string called;
  if (!h.in_loop && h.heat != Heat::Cold) chain(func_, called, related, h.heat);
  switch (h.heat) {
    case Heat::Hot:
      if (h.in_loop) s = (reads.empty() ? "every step" : reads) + " of the loop at " + loop_at;
      else s = (reads.empty() ? "every step" : reads) + ": " + called;
      break;
    case Heat::Periodic:
      // A guard in this function is named here; a caller's guard is named in the call chain.
      s = "at each logging interval";
      if (h.periodic) s += " (periodic guard at " + where(h.guard) + ")";
      if (!reads.empty()) s += ", " + reads;
      if (h.in_loop) s += " of the loop at " + loop_at;
      else if (!called.empty()) s += ": " + called;
      break;
    case Heat::Epoch:
      s = "once per epoch";
      if (!reads.empty()) s += ", " + reads;
      if (h.in_loop) s += " of the loop at " + loop_at;
      else if (!called.empty()) s += ": " + called;
      break;
    case Heat::Cold: s = "in code that runs once"; break;
  }
  return s;
}

void Walker::report(const Rule& rule, Node at, Confidence confidence, std::string_view what,
                    std::string_view fix, bool syncs, std::vector<TextEdit> edits) {
  if (syncs) synced();
  sum().reports = true;
  if (!emit_) return;
  if (!reported_.emplace(node_id(at), rule.id).second) return;
  HotInfo h = hot_info(false);
  if (h.heat == Heat::Cold && !p_.options->report_cold) return;
  Finding f;
  f.rule_id = rule.id;
  f.rule_name = rule.name;
  f.range = src_.range(at);
  f.confidence = confidence;
  const FuncInfo& fi = p_.funcs[func_];
  f.function = fi.module_body ? "<module>" : fi.qualname;
  f.severity = (h.heat == Heat::Hot && confidence != Confidence::Low) ? rule.default_severity : Severity::Note;
  f.periodic = h.heat == Heat::Periodic || h.heat == Heat::Epoch;
  if (h.multiplied && h.reads > 1) f.reads_per_step = static_cast<std::uint32_t>(h.reads);
  std::string subject(text(at));
  if (auto nl = subject.find('\n'); nl != std::string::npos) subject = subject.substr(0, nl) + "...";
  if (subject.size() > 60) subject = subject.substr(0, 57) + "...";
  f.message = "`" + subject + "` " + std::string(what) + ", " + phrase(h, f.related);
  if (confidence == Confidence::Low) f.message += " (if the value is on the GPU: its device is unknown here)";
  f.fix = std::string(fix);
  f.edits = std::move(edits);
  out_.findings.push_back(std::move(f));
  out_.finding_funcs.push_back(func_);
}

}  // namespace

void walk_file(Project& project, int file, bool emit, FileOutput& out) {
  Walker w(project, file, emit, out);
  w.run();
}

void walk_file_again(Project& project, int file, FileOutput&& old, const std::vector<char>& dirty, FileOutput& out) {
  FileOutput earlier = std::move(old);  // `old` may be `out`
  out = FileOutput{};
  Walker w(project, file, true, out);
  w.run_again(earlier, dirty);
}

}  // namespace synclint::python
