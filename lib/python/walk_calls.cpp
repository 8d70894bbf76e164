// Calls: arguments, the callee (a project function, class or module, an external name, a builtin, a
// method), its result and effects, and the catalog's rules for the API called.
#include <algorithm>

#include "python/nn_layers.h"
#include "python/walker_internal.h"

namespace synclint::python::walk {

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
  const bool collects = is_method && !to_device && collecting_method(ci.method) && !ci.args.empty();
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
  if (mod.kind == VK::Module && mod.cuda && !only_host_arguments(ci)) return Value::device(mod.conf);
  for (const Arg& a : ci.args)
    if (a.value.holds_device()) return Value::device(a.value.device_conf());
  return ret;
}

Value Walker::call_result(CallInfo& ci, const Value& callee, bool is_method, bool& work, bool& syncs) {
  if (!ci.builtin.empty()) return lib_.builtin_call(ci);
  const Value& target = is_method ? ci.recv : callee;
  const bool project = target.id >= 0 && (target.kind == VK::Instance || target.kind == VK::Module ||
                                          target.kind == VK::FuncRef || target.kind == VK::ClassRef);
  if (!project && lib_.builds_host_tensors(ci)) return Value::of(VK::HostTensor, Confidence::Medium);
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
    case VK::ModuleRef:
      if (lib_.returns("functions", callee.name, "timer")) return new_timer(ci);
      return lib_.function_call(ci, callee.name);
    case VK::Module:
    case VK::Instance: return module_call(callee, ci, work, syncs);
    default: return lib_.unknown_call(ci, callee);
  }
}

// A reading of the host clock: the timers read before it with GPU work queued since, not waited for, are
// what a difference with it measures without a synchronize.
Value Walker::new_timer(const CallInfo& ci) {
  TimerState t;
  t.node = ci.node;
  for (std::size_t i = 0; i < timers_.size(); ++i)
    // A difference with an earlier reading measures queued GPU work only if nothing waited in between.
    if (timers_[i].work && !timers_[i].synced) t.unsynced_before.push_back(static_cast<int>(i));
  timers_.push_back(std::move(t));
  Value v = Value::of(VK::Timer);
  v.id = static_cast<std::int32_t>(timers_.size() - 1);
  return v;
}

// `self.run_step()` in a base class whose `run_step` is abstract: the call runs the overrides of the project
// subclasses (a trainer's loop in the base, its step in each subclass).
void Walker::override_calls(int cls, std::string_view m, const CallInfo& ci, bool& work, bool& syncs) {
  std::vector<int> todo(p_.classes[cls].subclasses);
  std::unordered_set<int> seen(todo.begin(), todo.end());
  for (std::size_t i = 0; i < todo.size() && i < 256; ++i) {
    const ClassInfo& c = p_.classes[todo[i]];
    if (auto it = c.methods.find(std::string(m)); it != c.methods.end())
      (void)project_call(it->second, ci, true, work, syncs);
    for (int s : c.subclasses)
      if (seen.insert(s).second) todo.push_back(s);
  }
}

Value Walker::method_result(CallInfo& ci, bool& work, bool& syncs) {
  const Value& rv = ci.recv;
  const std::string_view m = ci.method;
  if ((rv.kind == VK::Instance || rv.kind == VK::Module) && rv.id >= 0) {
    const int target = p_.find_method(rv.id, m);
    if (target >= 0) {
      Value r = project_call(target, ci, true, work, syncs);
      if (text(ci.receiver) == "self" && abstract_body(p_, target)) override_calls(rv.id, m, ci, work, syncs);
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
  if (rv.kind == VK::ClassRef && rv.id >= 0) {  // `Model.from_checkpoint(path)`: a classmethod, or static
    const int target = p_.find_method(rv.id, m);
    if (target >= 0) {
      const FuncInfo& fi = p_.funcs[target];
      return project_call(target, ci, !fi.params().empty() && fi.params()[0] == "cls", work, syncs);
    }
  }
  return lib_.method_call(ci, work);
}

}  // namespace synclint::python::walk
