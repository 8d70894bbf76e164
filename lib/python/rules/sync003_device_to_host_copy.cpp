#include "python/rules/rules.h"

namespace synclint::python {

namespace {
constexpr std::string_view kCopyWhat = "copies a GPU tensor to host memory and waits for all queued GPU work";
constexpr std::string_view kCopyFix =
    "Keep results on the GPU and copy them once per logging interval; for a copy that overlaps with compute, "
    "use `.to('cpu', non_blocking=True)` into pinned memory and wait on a CUDA event before reading it.";
}  // namespace

// .cpu(), .numpy(), .to('cpu') of a GPU tensor and np.array/np.asarray of one. A chain such as
// `x.detach().cpu().numpy()` is one finding: after `.cpu()` the value is on the host.
void sync003_device_to_host_copy(const Rule& rule, const CallInfo& call, Checker& checker) {
  if (call.api_kind == "methods") {
    if (!call.recv.on_device()) return;
    if (call.method == "to") {
      if (!cpu_target(call.arg(0, "device"), checker)) return;
      if (const Arg* nb = call.keyword("non_blocking"); nb && kind(strip_parens(nb->node)) != K::False) return;
    } else if (call.method != "cpu" && call.method != "numpy") {
      return check_declared_api(rule, call, checker);
    }
    checker.report(rule, call.node, call.recv.conf, kCopyWhat, kCopyFix);
    return;
  }
  const Arg* a = call.positional(0);
  if (!a || !a->value.holds_device()) return;
  checker.report(rule, call.node, a->value.device_conf(), kCopyWhat, kCopyFix);
}

}  // namespace synclint::python
