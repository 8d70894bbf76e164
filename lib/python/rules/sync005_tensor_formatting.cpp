#include "python/rules/rules.h"

namespace synclint::python {

namespace {
constexpr std::string_view kFormattingWhat =
    "formats a GPU tensor as text, which copies it to the host and waits for all queued GPU work";
constexpr std::string_view kFormattingFix =
    "Format a host value read once per logging interval (one `.item()` or `.tolist()` at the interval), "
    "not the GPU tensor every step.";

bool logger_like(const CallInfo& call, const Checker& checker) {
  if (call.recv.kind == VK::Logger) return true;
  if (call.recv.kind != VK::Unknown) return false;
  std::string_view t = checker.text(call.receiver);
  if (auto dot = t.rfind('.'); dot != std::string_view::npos) t = t.substr(dot + 1);
  return t.find("log") != std::string_view::npos || t.find("LOG") != std::string_view::npos;
}

const Arg* device_arg(const CallInfo& call) {
  for (const Arg& a : call.args)
    if (a.value.holds_device()) return &a;
  return nullptr;
}
}  // namespace

// print/str/repr/format builtins, logging functions, str.format and logger methods with a GPU tensor.
void sync005_tensor_formatting(const Rule& rule, const CallInfo& call, Checker& checker) {
  if (call.api_kind == "methods") {
    if (call.method == "format") {
      if (call.recv.kind != VK::Host && call.recv.kind != VK::Unknown) return;
    } else if (!logger_like(call, checker)) {
      return;
    }
    // A dict of metrics goes to an experiment logger (SYNC010), not to text.
    for (const Arg& a : call.args)
      if (a.value.kind == VK::Container && !a.value.positional && a.value.holds_device()) return;
  }
  const Arg* a = device_arg(call);
  if (!a) return;
  checker.report(rule, call.node, a->value.device_conf(), kFormattingWhat, kFormattingFix);
}

// f"{loss:.3f}" and "%f" % loss.
void sync005_format_value(const Rule& rule, const FormatInfo& site, Checker& checker) {
  if (!site.value.holds_device()) return;
  checker.report(rule, site.node, site.value.device_conf(), kFormattingWhat, kFormattingFix);
}

}  // namespace synclint::python
