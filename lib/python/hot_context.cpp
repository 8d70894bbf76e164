// Hot context: how often a site runs (loops, periodic guards, the heat of the function and the calling
// chain that made it hot), and the wording of findings from it.
#include <algorithm>
#include <iterator>

#include "python/walker_internal.h"

namespace synclint::python::walk {

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
      const Periodic l = periodic_kind(field(c, "left"), depth + 1);
      const Periodic r = periodic_kind(field(c, "right"), depth + 1);
      if (text(op) == "and") return l == Periodic::WhenTrue || r == Periodic::WhenTrue ? Periodic::WhenTrue : Periodic::None;
      // `step % N == 0 or is_last_batch`, `step % N == 0 or step == 0`: still true only now and then.
      if (text(op) != "or") return Periodic::None;
      const bool lp = l == Periodic::WhenTrue, rp = r == Periodic::WhenTrue;
      if ((lp && (rp || once_only(field(c, "right"), depth + 1))) || (rp && once_only(field(c, "left"), depth + 1)))
        return Periodic::WhenTrue;
      return Periodic::None;
    }
    case K::Identifier: {
      // `should_log = step % N == 0` (or a call that returns such a test) earlier, then `if should_log:`.
      auto it = periodic_vars_.find(std::string(text(c)));
      return it == periodic_vars_.end() ? Periodic::None : it->second;
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
    case K::ConditionalExpression: {
      // `(i + 1) % n == 0 if n > 0 else False`: true only on the interval either way.
      if (named_count(c) != 3) return Periodic::None;
      const Periodic a = periodic_kind(named(c, 0), depth + 1), b = periodic_kind(named(c, 2), depth + 1);
      const bool a_false = kind(strip_parens(named(c, 0))) == K::False;
      const bool b_false = kind(strip_parens(named(c, 2))) == K::False;
      if ((a == Periodic::WhenTrue && (b_false || b == a)) || (b == Periodic::WhenTrue && a_false))
        return Periodic::WhenTrue;
      return Periodic::None;
    }
    default: return Periodic::None;
  }
}

// periodic_kind, and a call of a project function that returns a periodic test (`self.every_n_iters(i, n)`)
// or of a library's interval test (`should_log(step)`): true on the interval.
Periodic Walker::guard_kind(Node c) {
  const Periodic pk = periodic_kind(c);
  if (pk != Periodic::None || kind(strip_parens(c)) != K::Call) return pk;
  const int callee = called_function(c);
  if (callee >= 0 ? callee_sum(callee).periodic_return
                  : interval_test_name(last_part(text(field(strip_parens(c), "function")))))
    return Periodic::WhenTrue;
  return Periodic::None;
}

namespace {
// A name that counts steps, iterations or epochs (`step`, `batch_idx`, `self.global_step`, `warmup_iters`).
bool counter_name(std::string_view name) {
  for (std::string_view w : {"step", "iter", "epoch", "idx", "batch", "count"})
    if (contains_ci(name, w)) return true;
  return name == "i" || name == "it" || name == "n";
}
}  // namespace

// Is `c` true at a single step of a run: a step counter equal to a number or a bound (`step == 0`,
// `i == warmup_steps`, `epoch == start_epoch and batch_idx == 0`), a first/last flag (`is_last_batch`)?
// With `exit` (the body leaves the loop), `step >= max_steps` counts too: it is true once, then the loop ends.
bool Walker::once_only(Node c, int depth, bool exit) const {
  c = strip_parens(c);
  if (depth > 16) return false;
  switch (kind(c)) {
    case K::BooleanOperator: {
      const bool l = once_only(field(c, "left"), depth + 1, exit), r = once_only(field(c, "right"), depth + 1, exit);
      return text(field(c, "operator")) == "and" ? (l || r) : (l && r);
    }
    case K::Identifier:
    case K::Attribute: {
      const std::string_view t = last_part(text(c));
      return contains_ci(t, "last") || contains_ci(t, "first") || contains_ci(t, "final");
    }
    case K::Call: {
      // A test named for the end of an epoch or run (`self.end_of_epoch(loader, i)`, `is_last_batch(i)`).
      const std::string_view t = last_part(text(field(c, "function")));
      return t.starts_with("end_of_") || t.starts_with("is_last") || t.starts_with("is_first");
    }
    case K::ComparisonOperator: {
      if (named_count(c) != 2) return false;
      for (Node op : children(c))
        if (!is_named(op) && text(op) != "==" && !(exit && (text(op) == ">=" || text(op) == ">"))) return false;
      Node l = strip_parens(named(c, 0)), r = strip_parens(named(c, 1));
      auto counter = [&](Node o) {
        const K k = kind(o);
        return (k == K::Identifier || k == K::Attribute) && counter_name(last_part(text(o)));
      };
      auto bound = [&](Node o) {
        const K k = kind(o);
        return k == K::Integer || k == K::Identifier || k == K::Attribute || k == K::BinaryOperator;
      };
      if (kind(l) == K::BinaryOperator && interval_modulo(l)) return false;
      if (kind(r) == K::BinaryOperator && interval_modulo(r)) return false;
      return (counter(l) && bound(r)) || (counter(r) && bound(l));
    }
    default: return false;
  }
}

bool Walker::change_guard(Node c, Node body) const {
  c = strip_parens(c);
  if (kind(c) != K::ComparisonOperator || named_count(c) != 2 || null(body)) return false;
  for (Node op : children(c))
    if (!is_named(op) && text(op) != "!=") return false;
  const std::string_view a = text(strip_parens(named(c, 0))), b = text(strip_parens(named(c, 1)));
  for (Node s : named_children(body)) {
    if (kind(s) != K::ExpressionStatement || named_count(s) == 0) continue;
    Node as = named(s, 0);
    if (kind(as) != K::Assignment) continue;
    const std::string_view l = text(field(as, "left")), r = text(strip_parens(field(as, "right")));
    if ((l == b && r == a) || (l == a && r == b)) return true;
  }
  return false;
}

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
    if (f.kind == Frame::Kind::Cold) {
      HotInfo once;
      once.once = true;
      return once;
    }
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
    // A loop that runs under a periodic guard (an evaluation loop every N steps) is periodic as a whole.
    for (auto out = std::next(it); out != frames_.rend() && !h.periodic; ++out) {
      if (out->kind == Frame::Kind::Boundary) break;
      if (out->kind == Frame::Kind::Guard) {
        h.periodic = true;
        h.guard = out->node;
      }
    }
    break;
  }
  if (!h.in_loop) {
    h.heat = lexical_only ? Heat::Cold : p_.heat[func_].heat;
  } else if (!lexical_only && !h.periodic && h.heat == Heat::Hot && p_.heat[func_].heat == Heat::Periodic) {
    // A loop of a function called at logging intervals (a sample generation every N steps) runs then too.
    h.heat = Heat::Periodic;
    h.periodic_caller = true;
  }
  if (h.periodic && h.heat == Heat::Hot) h.heat = Heat::Periodic;
  if (h.multiplied) h.reads = reads_known ? reads : -1;
  if (h.heat == Heat::Cold) h.multiplied = false;
  return h;
}

Span Walker::loop_span(Node loop) const {
  const Node body = field(loop, "body");
  Node end = loop;
  if (!null(body))
    for (Node c : children(loop)) {
      if (node_id(c) == node_id(body)) break;
      end = c;
    }
  return Span{src_.position(start_point(loop)), src_.position(end_point(end))};
}

Lexical Walker::lexical() const {
  HotInfo h = hot_info(true);
  Lexical l;
  l.heat = h.heat;
  l.in_loop = h.in_loop;
  l.once = h.once;
  if (h.in_loop) l.loop = loop_span(h.loop);
  l.periodic = h.periodic;
  if (h.periodic) l.guard = span(h.guard);
  return l;
}

}  // namespace synclint::python::walk

namespace synclint::python::walk {

void Walker::chain(int fn, std::string& called, std::vector<RelatedLocation>& related, Heat heat) const {
  call_chain(p_, fn, called, related, heat);
}

std::string Walker::phrase(const HotInfo& h, std::vector<RelatedLocation>& related,
                          std::optional<FileOutput::ChainPart>& part) const {
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
    const Span header = loop_span(h.loop);
    related.push_back({SourceRange{src_.path(), header.begin, header.end}, "inside loop at " + loop_at});
  }
  std::string called;
  if ((!h.in_loop || h.periodic_caller) && h.heat != Heat::Cold) {
    part.emplace();
    part->heat = h.heat;
    part->related_at = static_cast<std::uint32_t>(related.size());
    chain(func_, called, related, h.heat);
    part->related_length = static_cast<std::uint32_t>(related.size()) - part->related_at;
  }
  // The chain's text at the end of the phrase so far (after ": " when `colon`).
  auto add_chain = [&](bool colon) {
    if (!part) return;
    part->in_message = true;
    part->colon = colon;
    part->message_at = static_cast<std::uint32_t>(s.size());
    if (colon && !called.empty()) s += ": ";
    if (colon && called.empty()) return;
    s += called;
    part->message_length = static_cast<std::uint32_t>(s.size()) - part->message_at;
  };
  switch (h.heat) {
    case Heat::Hot:
      if (h.in_loop) {
        s = (reads.empty() ? "every step" : reads) + " of the loop at " + loop_at;
      } else {
        s = (reads.empty() ? "every step" : reads) + ": ";
        add_chain(false);
      }
      break;
    case Heat::Periodic:
      // A guard in this function is named here; a caller's guard is named in the call chain.
      s = "at each logging interval";
      if (h.periodic) s += " (periodic guard at " + where(h.guard) + ")";
      if (!reads.empty()) s += ", " + reads;
      if (h.in_loop) s += " of the loop at " + loop_at;
      if (!h.in_loop || h.periodic_caller) add_chain(true);
      break;
    case Heat::Epoch:
      s = "once per epoch";
      if (!reads.empty()) s += ", " + reads;
      if (h.in_loop) s += " of the loop at " + loop_at;
      else add_chain(true);
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
  f.message = "`" + subject + "` " + std::string(what) + ", ";
  std::optional<FileOutput::ChainPart> part;
  const std::string said = phrase(h, f.related, part);
  if (part) {
    part->finding = static_cast<std::uint32_t>(out_.findings.size());
    part->message_at += static_cast<std::uint32_t>(f.message.size());
    out_.chain_parts.push_back(*part);
  }
  f.message += said;
  if (confidence == Confidence::Low) f.message += " (if the value is on the GPU: its device is unknown here)";
  f.fix = std::string(fix);
  f.edits = std::move(edits);
  out_.findings.push_back(std::move(f));
  out_.finding_funcs.push_back(func_);
}

}  // namespace synclint::python::walk
