#include "python/rules/rules.h"

namespace synclint::python {

// if/while/assert/ternary/and/or/not on a GPU tensor: Python needs its truth value on the host.
void sync006_branch_on_device_value(const Rule& rule, const ConditionInfo& site, Checker& checker) {
  if (!site.value.on_device()) return;
  checker.report(rule, site.node, site.value.conf,
                 "branches on a GPU value: Python needs its truth value on the host and waits for all queued "
                 "GPU work",
                 "Keep the decision on the GPU (`torch.where`, masking), or accumulate a flag on the GPU and "
                 "check it once per logging interval; a non-finite guard can read one combined value per step.");
}

}  // namespace synclint::python
