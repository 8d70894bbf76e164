#include "python/rules/rules.h"

namespace synclint::python {

namespace {
bool scaler_like(const CallInfo& call, const Checker& checker, Confidence& conf) {
  if (call.recv.kind == VK::Scaler) return true;
  if (call.recv.kind != VK::Unknown) return false;
  conf = Confidence::Medium;
  std::string_view t = checker.text(call.receiver);
  return t.find("scaler") != std::string_view::npos;
}
}  // namespace

// torch.equal, allclose, clip_grad_norm_(error_if_nonfinite=True), GradScaler.step with a non-fused
// optimizer, GradScaler.get_scale(), mmengine's get_max_cuda_memory().
void sync009_syncing_library_call(const Rule& rule, const CallInfo& call, Checker& checker) {
  Confidence conf = Confidence::High;
  if (call.api_kind == "methods") {
    if (call.method == "equal" || call.method == "allclose") {
      if (!call.recv.on_device()) return;
      checker.report(rule, call.node, call.recv.conf,
                     "compares GPU tensors and returns a Python bool, which waits for all queued GPU work",
                     "Compute the comparison as a tensor (`torch.isclose(a, b).all()`) and read it once per "
                     "logging interval, or only in tests.");
      return;
    }
    if (call.method == "get_scale") {
      if (!scaler_like(call, checker, conf)) return;
      checker.report(rule, call.node, conf,
                     "reads the loss scale from the GPU into a Python float, which waits for all queued GPU work",
                     "Read the scale once per logging interval, or use `scaler._scale` as a tensor.");
      return;
    }
    if (call.method == "step") {
      if (!scaler_like(call, checker, conf)) return;
      const Arg* opt = call.arg(0, "optimizer");
      if (!opt) return;
      if (opt->value.kind == VK::Optimizer && opt->value.fused) return;
      if (opt->value.kind != VK::Optimizer) conf = Confidence::Medium;
      checker.report(rule, call.node, conf,
                     "checks the gradients for inf/NaN on the host with a non-fused optimizer, which waits for "
                     "all queued GPU work every step",
                     "Create the optimizer with `fused=True` (Adam, AdamW, SGD) so the inf check stays on the GPU.");
      return;
    }
    return check_declared_api(rule, call, checker);
  }
  const std::string_view q = call.qualified;
  if (q.ends_with("clip_grad_norm_")) {
    if (!is_true_literal(call.keyword("error_if_nonfinite"), checker)) return;
    checker.report(rule, call.node, conf,
                   "with error_if_nonfinite=True reads the total norm on the host to raise, which waits for all "
                   "queued GPU work",
                   "Drop error_if_nonfinite=True (the default does not sync) and check the returned norm on the GPU, "
                   "reading it once per logging interval.");
    return;
  }
  if (q.ends_with("get_max_cuda_memory") || q.ends_with("get_max_musa_memory")) {
    // mmengine's device helpers put the peak memory in a device tensor and read it back with `.item()`.
    checker.report(rule, call.node, Confidence::Medium,
                   "puts the peak memory in a GPU tensor and reads it back with `.item()`, which waits for all "
                   "queued GPU work",
                   "Read `torch.cuda.max_memory_allocated()` (a host counter) instead, once per logging interval.");
    return;
  }
  if (!call.any_arg_holds_device()) return;
  checker.report(rule, call.node, conf,
                 "compares GPU tensors and returns a Python bool, which waits for all queued GPU work",
                 "Compute the comparison as a tensor (`torch.isclose(a, b).all()`) and read it once per logging "
                 "interval, or only in tests.");
}

}  // namespace synclint::python
