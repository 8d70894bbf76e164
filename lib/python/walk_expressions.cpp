// Expressions: names and their bindings, attributes, subscripts, operators, strings, containers,
// comprehensions and lambdas; conditions, formatted values, subscripts and timing deltas go to the rules.
#include <algorithm>
#include <array>
#include <optional>

#include "python/walker_internal.h"

namespace synclint::python::walk {
namespace {

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

}  // namespace

Value Walker::expr(Node n) {
  if (null(n)) return {};
  if (depth_ > kMaxDepth) {
    const std::uint32_t line = start_point(n).row + 1;
    if (out_.depth_cut_line == 0 || line < out_.depth_cut_line) out_.depth_cut_line = line;
    return {};
  }
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
    check_site(&RuleEntry::condition, ci);
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
      // `x.device if on_gpu else "cpu"`: a device picked at run time, the GPU when there is one.
      auto cpu_literal = [&](Node e, const Value& v) {
        return v.kind == VK::DeviceSpec && !v.cuda && kind(strip_parens(e)) == K::String;
      };
      const bool ca = cpu_literal(named(n, 0), a), cb = cpu_literal(named(n, 2), b);
      if (ca != cb && !(ca ? b : a).host_like() && (ca ? b : a).kind != VK::DeviceSpec) {
        Value d = Value::of(VK::DeviceSpec, Confidence::Medium);
        d.cuda = true;
        return d;
      }
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
      // `stats = stats.to(device)` in a loop, the only assignment of a name bound before the loop: the
      // first iteration copies, the later ones find it on the device already.
      const bool once = !null(right) && rebinds_to_device(field(n, "left"), right);
      if (once) {
        Frame first;
        first.kind = Frame::Kind::Cold;
        first.node = n;
        frames_.push_back(first);
      }
      Value v = null(right) ? Value{} : expr(right);
      if (once) frames_.pop_back();
      if (Node left = strip_parens(field(n, "left")); kind(left) == K::Identifier) {
        std::string name(text(left));
        // `should_log = self.metrics.should_log(step)`: a project function that returns a periodic test.
        const Periodic pk = null(right) ? Periodic::None : guard_kind(right);
        if (pk != Periodic::None) periodic_vars_[std::move(name)] = pk;
        else periodic_vars_.erase(name);
      }
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
      else if (cur.kind == VK::HostTensor) v = cur;  // in place: a CPU tensor stays on the CPU
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
    case K::Yield: {
      // A generator: what its callers iterate (or take with next()) is what it yields.
      if (named_count(n) == 0) return {};
      Value v = expr(named(n, 0));
      // `yield from loader`: each item of the loader.
      if (text(n).starts_with("yield from")) {
        v = v.element();
        if (v.kind == VK::Unknown) return {};
      }
      FuncSummary& s = sum();
      const Value gen = Value::container({v}, false);
      s.ret = s.returns ? join(s.ret, gen) : gen;
      s.returns = true;
      return {};
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

namespace {
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
}  // namespace

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
  if (recv.kind == VK::ModuleRef) return module_attr(recv, name);
  if ((recv.kind == VK::Module || recv.kind == VK::Instance) && recv.id >= 0) {
    // `self.dataloader` of a trainer object, set from something unknown: a data loader.
    const bool loader = recv.kind == VK::Instance && contains_ci(name, "loader");
    if (const Value* a = class_attr(recv.id, std::string(name)); a && (a->kind != VK::Unknown || !loader)) {
      Value v = *a;
      if (recv.kind == VK::Module && recv.cuda && (v.kind == VK::Module || v.kind == VK::HostTensor)) {
        v.kind = v.kind == VK::HostTensor ? VK::Device : VK::Module;
        v.cuda = true;
      }
      return v;
    }
  }
  // Options parsed from the command line or a config file (`args.lr`, `cfg.w_max`) are Python values.
  if (recv.kind == VK::Unknown && kind(obj) == K::Identifier && options_name(text(obj))) {
    Value v = lib_.attribute(recv, name);
    return v.kind == VK::Unknown ? Value::host() : v;
  }
  return lib_.attribute(recv, name);
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
    check_site(&RuleEntry::subscript, si);
  }
  switch (bv.kind) {
    case VK::Device: return Value::device(bv.conf, bv.mask);
    case VK::HostTensor: return Value::of(VK::HostTensor, bv.conf);
    case VK::Params: return Value::device(bv.conf);
    case VK::Host: return Value::host();
    case VK::Module: return bv;
    case VK::Container: {
      if (idx_nodes.size() == 1)
        if (std::optional<long> i = integer_literal(idx_nodes[0], *this); i && *i >= 0)
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
      check_site(&RuleEntry::format, fi);
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
      check_site(&RuleEntry::timing, ti);
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
    // A tensor compared with a string is never equal to it: Python answers without reading the tensor.
    const K k = kind(strip_parens(n_i));
    if (k == K::String || k == K::ConcatenatedString) identity = true;
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
      if (c_j == e) continue;  // walked above
      Node spec = c_j;
      for (Node spec_k : named_children(spec))
        if (kind(spec_k) == K::Interpolation) (void)expr(field(spec_k, "expression"));
    }
    if (v.holds_device()) {
      FormatInfo fi{e, e, v};
      check_site(&RuleEntry::format, fi);
    }
  }
  return named_count(n) == 2 || named_count(n) == 3 ? string_literal_value(text(n)) : Value::host();
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

bool Walker::rebinds_to_device(Node left, Node right) const {
  left = strip_parens(left);
  right = strip_parens(right);
  if (kind(left) != K::Identifier || kind(right) != K::Call) return false;
  Node fn = strip_parens(field(right, "function"));
  if (kind(fn) != K::Attribute || text(strip_parens(field(fn, "object"))) != text(left)) return false;
  const std::string_view m = text(field(fn, "attribute"));
  if (m != "to" && m != "cuda") return false;
  const Frame* loop = nullptr;
  for (auto it = frames_.rbegin(); it != frames_.rend() && !loop; ++it) {
    if (it->kind == Frame::Kind::Boundary) return false;
    if (it->kind == Frame::Kind::Loop) loop = &*it;
  }
  if (!loop || kind(loop->node) != K::ForStatement) return false;
  // Bound by the loop itself, or assigned again in it: every iteration may bring new host data.
  int assignments = 0;
  PreOrder walk(field(loop->node, "left"));
  for (Node cur; !null(cur = walk.next());)
    if (kind(cur) == K::Identifier && text(cur) == text(left)) return false;
  PreOrder body(field(loop->node, "body"));
  for (Node cur; !null(cur = body.next());) {
    const K k = kind(cur);
    if (k == K::FunctionDefinition || k == K::Lambda || k == K::ClassDefinition) {
      body.skip_children();
      continue;
    }
    if (k == K::Assignment || k == K::AugmentedAssignment || k == K::ForStatement) {
      Node target = strip_parens(field(cur, "left"));
      PreOrder names(target);
      for (Node t; !null(t = names.next());)
        if (kind(t) == K::Identifier && text(t) == text(left)) ++assignments;
    }
  }
  return assignments == 1;
}

Value Walker::lambda(Node n) {
  Frame b;
  b.kind = Frame::Kind::Boundary;
  b.node = n;
  frames_.push_back(b);
  Value body;
  {
    Shadow shadow(env_);  // parameters shadow outer names inside the body only
    for (Node p : named_children(field(n, "parameters"))) {
      if (kind(p) != K::Identifier) continue;
      const std::string name(text(p));
      shadow.hide(name);
      env_[name] = Value{};
    }
    body = expr(field(n, "body"));
  }
  frames_.pop_back();
  // A lambda that turns what it gets into Python values (`lambda t: t.item()`): a host converter, which
  // library helpers that map it over a collection use to give host values back.
  return body.kind == VK::Host ? Value::host() : Value{};
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
    const std::optional<long> v = integer_literal(ch, *this);
    if (part > 1 || !v) return std::nullopt;
    bounds[part] = std::clamp(*v < 0 ? *v + size : *v, 0L, size);
  }
  std::vector<Value> items;
  for (long i = bounds[0]; i < bounds[1]; ++i) items.push_back((*c.items)[static_cast<std::size_t>(i)]);
  return Value::container(std::move(items), true);
}

}  // namespace synclint::python::walk
