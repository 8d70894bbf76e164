#include "python/rules/rules.h"

namespace synclint::python {

// torch.cuda.synchronize(), stream.synchronize(), event.synchronize() in hot code.
void sync007_explicit_synchronize(const Rule& rule, const CallInfo& call, Checker& checker) {
  Confidence conf = Confidence::High;
  if (call.api_kind == "methods") {
    if (call.method != "synchronize") return check_declared_api(rule, call, checker);
    if (call.recv.kind == VK::Unknown) conf = Confidence::Medium;
    else if (call.recv.kind != VK::Stream) return;
  }
  checker.report(rule, call.node, conf, "blocks the host until the GPU has finished all queued work",
                 "Remove the synchronize from the per-step path; to time GPU work use "
                 "`torch.cuda.Event(enable_timing=True)` and read `elapsed_time()` once per logging interval.");
}

}  // namespace synclint::python
