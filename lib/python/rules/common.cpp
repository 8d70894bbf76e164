// Shared pieces of the rules: call accessors and the judgments several rules make.
#include <algorithm>

#include "python/rules/rules.h"

namespace synclint::python {

const Arg* CallInfo::positional(std::size_t i) const {
  std::size_t n = 0;
  for (const Arg& a : args) {
    if (!a.keyword.empty()) continue;
    if (n++ == i) return &a;
  }
  return nullptr;
}

const Arg* CallInfo::keyword(std::string_view name) const {
  for (const Arg& a : args)
    if (a.keyword == name) return &a;
  return nullptr;
}

const Arg* CallInfo::arg(std::size_t i, std::string_view name) const {
  if (const Arg* a = keyword(name)) return a;
  return positional(i);
}

const Value* CallInfo::subject() const {
  if (!null(receiver)) return &recv;
  const Arg* a = positional(0);
  return a ? &a->value : nullptr;
}

Node CallInfo::subject_node() const {
  if (!null(receiver)) return receiver;
  const Arg* a = positional(0);
  return a ? a->node : Node{};
}

bool CallInfo::any_arg_holds_device() const {
  return std::any_of(args.begin(), args.end(), [](const Arg& a) { return a.value.holds_device(); });
}

bool is_true_literal(const Arg* a, const Checker&) { return a && kind(strip_parens(a->node)) == K::True; }

bool cuda_target(const Arg* a, const Checker& c, Confidence& confidence) {
  if (!a) return false;
  const Value& v = a->value;
  if (v.kind == VK::DeviceSpec) {
    confidence = v.conf;
    return v.cuda;
  }
  if (v.kind == VK::Device) {
    confidence = v.conf;
    return true;
  }
  const std::string_view t = c.text(a->node);
  if (t.find("cuda") != std::string_view::npos && t.find("cpu") == std::string_view::npos &&
      t.find("dtype") == std::string_view::npos) {
    confidence = Confidence::Medium;
    return true;
  }
  return false;
}

bool cpu_target(const Arg* a, const Checker& c) {
  if (!a) return false;
  if (a->value.kind == VK::DeviceSpec && !a->value.cuda) return c.text(a->node).find("cpu") != std::string_view::npos ||
                                                                 a->value.conf == Confidence::High;
  const std::string_view t = c.text(a->node);
  return t == "\"cpu\"" || t == "'cpu'";
}

void check_declared_api(const Rule& rule, const CallInfo& call, Checker& checker) {
  const Value* s = call.subject();
  if (s && (s->host_like() || s->kind == VK::DeviceSpec)) return;
  const Confidence conf = s && s->holds_device() ? s->device_conf() : Confidence::Medium;
  checker.report(rule, call.node, conf,
                 "is declared in the configuration as an API that synchronizes: it waits for all queued GPU work",
                 "Move the call out of the per-step path, or call it once per logging interval.");
}

}  // namespace synclint::python
