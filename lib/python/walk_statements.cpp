// Statements: blocks, branches and their joins, loops and the frames they push, assignments.
#include <algorithm>

#include "python/walker_internal.h"

namespace synclint::python::walk {

void Walker::block(Node n) {
  const std::size_t frames_at_start = frames_.size();
  for (Node s : named_children(n)) {
    {
      stmt(s);
      // `if step % N != 0: continue` (or `if not should_log: return`) makes the rest of the block periodic.
      if (kind(s) == K::IfStatement && null(field(s, "alternative"))) {
        Node cons = field(s, "consequence");
        const K last = null(cons) || named_count(cons) == 0 ? K::Comment : kind(named(cons, named_count(cons) - 1));
        if ((last == K::ContinueStatement || last == K::ReturnStatement) &&
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
        // `return step % self.log_every == 0`: callers that keep the answer in a flag guard periodically.
        if (periodic_kind(named(n, 0)) == Periodic::WhenTrue) sum().periodic_return = true;
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
    case K::RaiseStatement:
      // The exception is built only on the failure path.
      once_block(n, n, true);
      break;
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
    case K::FunctionDefinition: {
      // Walked on its own; a function defined inside this one is called by its name from here on.
      if (in_module_ || p_.funcs[func_].module_body) break;
      for (int fn : f_.funcs)
        if (p_.funcs[fn].parent == func_ && node_id(p_.funcs[fn].node) == node_id(n)) {
          Value v = Value::of(VK::FuncRef);
          v.id = fn;
          v.name = p_.funcs[fn].name;
          env_[p_.funcs[fn].name] = v;
          break;
        }
      break;
    }
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

// `body` (a block, or one statement) under a guard that holds once per run or per epoch: cold.
void Walker::once_block(Node body, Node guard, bool statement) {
  if (null(body)) return;
  Frame once;
  once.kind = Frame::Kind::Cold;
  once.node = guard;
  frames_.push_back(once);
  if (statement) generic(body);
  else block(body);
  frames_.pop_back();
}

void Walker::if_stmt(Node n) {
  Node condition = field(n, "condition");
  (void)cond(condition);
  Periodic pk = guard_kind(condition);
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
  Node cons = field(n, "consequence");
  const Node last = null(cons) || named_count(cons) == 0 ? Node{} : named(cons, named_count(cons) - 1);
  const bool exits = !null(last) && kind(last) == K::BreakStatement;
  if (pk == Periodic::None && !null(cons) &&
      (once_only(condition, 0, exits) || ends_process(last) || change_guard(condition, cons))) {
    // Once-only: `if step == 0:`, `if i == warmup_steps:`, `if step >= max_steps: ... break`; or the
    // failure path that ends the program (`sys.exit(1)`), like a `raise`; or a block that runs when a
    // value changes and records the new one.
    once_block(cons, condition);
  } else {
    branch(field(n, "consequence"), pk == Periodic::WhenTrue, condition);
  }
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
      const Periodic ek = guard_kind(ec);
      // `elif self.end_of_epoch(loader, i):` after an interval test: once per epoch.
      if (!off_interval && ek == Periodic::None && once_only(ec)) once_block(field(c, "consequence"), ec);
      else branch(field(c, "consequence"), off_interval || ek == Periodic::WhenTrue, off_interval ? guard : ec);
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

namespace {
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
}  // namespace

// Does the statement end the process (`sys.exit(1)`, `exit()`, `os._exit(1)`)?
bool Walker::ends_process(Node s) const {
  if (null(s) || kind(s) != K::ExpressionStatement || named_count(s) == 0) return false;
  Node call = strip_parens(named(s, 0));
  if (kind(call) != K::Call) return false;
  const std::string_view fn = text(field(call, "function"));
  return fn == "sys.exit" || fn == "exit" || fn == "quit" || fn == "os._exit";
}

// The project function a call calls (`f(...)`, `obj.method(...)`, `self.helper.method(...)`,
// `module.f(...)`), or -1.
int Walker::called_function(Node call) {
  call = strip_parens(call);
  if (kind(call) != K::Call) return -1;
  Node fn = strip_parens(field(call, "function"));
  if (kind(fn) == K::Identifier) {
    Value v = lookup(std::string(text(fn)));
    return v.kind == VK::FuncRef ? v.id : -1;
  }
  if (kind(fn) != K::Attribute) return -1;
  Node obj = strip_parens(field(fn, "object"));
  Value v;
  if (kind(obj) == K::Identifier) v = lookup(std::string(text(obj)));
  else if (kind(obj) == K::Attribute) v = expr(obj);
  if ((v.kind == VK::Instance || v.kind == VK::Module) && v.id >= 0) return p_.find_method(v.id, text(field(fn, "attribute")));
  if (v.kind == VK::ModuleRef) {
    Value f = module_attr(v, text(field(fn, "attribute")));
    if (f.kind == VK::FuncRef) return f.id;
  }
  return -1;
}

// Does the statement call a project function that holds a batch loop (train_one_epoch(...))?
bool Walker::calls_batch_loop(Node stmt_node) {
  Node e = stmt_node;
  if (kind(e) == K::ExpressionStatement && named_count(e) > 0) e = named(e, 0);
  if (kind(e) == K::Assignment || kind(e) == K::AugmentedAssignment) e = field(e, "right");
  e = strip_parens(e);
  if (kind(e) != K::Call) return false;
  // Only plain names and names' attributes, as before: a deeper receiver is not walked again here.
  Node fn = strip_parens(field(e, "function"));
  if (kind(fn) == K::Attribute && kind(strip_parens(field(fn, "object"))) != K::Identifier) return false;
  const int callee = called_function(e);
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
  } else if (!null(iterable_node) &&
             (contains_ci(text(iterable_node), "text_encoders") || contains_ci(text(iterable_node), "tokenizers"))) {
    // `for tokenizer, text_encoder in zip(tokenizers, text_encoders)`: once per encoder of a model, as often as
    // the code around the loop runs (a prompt encoder called every step, or once to precompute embeddings).
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
  // What the loop draws from through enumerate(...), tqdm(...): a loader's batches are steps, never a
  // per-element multiplier, even when they are on the GPU.
  Value source = it;
  if (Node src = iterated_name(right); src != strip_parens(right) && (kind(src) == K::Identifier || kind(src) == K::Attribute))
    source = expr(src);
  if (source.kind != VK::Loader) source = it;
  if (source.kind == VK::Loader || batch_source_name(last_part(text(iterated_name(right))))) sum().batch_loop = true;
  frames_.push_back(loop_frame(n, right, source, left, body));
  // The loop draws one item per iteration: a loader that copies its batches is judged inside the loop.
  if (source.kind == VK::Loader) check_site(&RuleEntry::iteration, IterationInfo{right, source});
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

void Walker::assign(Node target, const Value& v) {
  target = strip_parens(target);
  if (null(target)) return;
  switch (kind(target)) {
    case K::Identifier: {
      const std::string_view name = text(target);
      // `hypo_str = decode(tokens, ...)`: a name for text holds a string, whatever a helper's arguments were.
      const bool text_name = name.ends_with("_str") || name.ends_with("_string");
      env_[std::string(name)] = text_name && v.on_device() ? Value::host() : v;
      return;
    }
    case K::Attribute: {
      const std::string key = path_key(target);
      if (key.empty()) {
        (void)expr(field(target, "object"));
        return;
      }
      env_[key] = v;
      Node obj = strip_parens(field(target, "object"));
      const FuncInfo& fi = p_.funcs[func_];
      if (kind(obj) == K::Identifier && fi.cls >= 0 && fi.bound_first && !fi.params().empty() &&
          text(obj) == fi.params()[0]) {
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
      check_site(&RuleEntry::subscript, si);
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

}  // namespace synclint::python::walk
