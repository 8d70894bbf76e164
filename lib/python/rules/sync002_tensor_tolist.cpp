#include "python/rules/rules.h"

namespace synclint::python {

// `t.tolist()` on a GPU tensor: a blocking copy into Python objects.
void sync002_tensor_tolist(const Rule& rule, const CallInfo& call, Checker& checker) {
  if (call.api_kind != "methods") return check_declared_api(rule, call, checker);
  if (!call.recv.on_device()) return;
  checker.report(rule, call.node, call.recv.conf,
                 "copies a GPU tensor into a Python list and waits for all queued GPU work",
                 "Collect the tensors on the GPU (`torch.cat`) and call `.tolist()` once after the loop or at "
                 "the logging interval.");
}

}  // namespace synclint::python
