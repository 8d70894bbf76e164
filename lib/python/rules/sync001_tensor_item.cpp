#include "python/rules/rules.h"

namespace synclint::python {

// `t.item()`: a scalar device-to-host copy plus a stream synchronization. Unknown receivers are reported
// with low confidence (a note): `.item()` is almost always a tensor method.
void sync001_tensor_item(const Rule& rule, const CallInfo& call, Checker& checker) {
  if (call.api_kind != "methods") return check_declared_api(rule, call, checker);
  const Value& v = call.recv;
  if (!v.on_device() && v.kind != VK::Unknown) return;
  checker.report(rule, call.node, v.on_device() ? v.conf : Confidence::Low,
                 "copies a GPU value to the host and waits for all queued GPU work",
                 "Keep the value on the GPU (accumulate `total += loss.detach()`) and read it once per logging "
                 "interval; for many statistics, `torch.stack` them and copy them in one `.tolist()`.");
}

}  // namespace synclint::python
