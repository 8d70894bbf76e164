#include "python/rules/rules.h"

namespace synclint::python {

// end - start of host clock readings with GPU work queued in between and no synchronization.
void sync012_unsynchronized_timing(const Rule& rule, const TimingInfo& site, Checker& checker) {
  const std::string what = "measures host time around GPU work queued since " + checker.where(site.start) +
                           " with no synchronization in between: it times kernel launches, not GPU execution";
  checker.report(rule, site.node, Confidence::High, what,
                 "Call `torch.cuda.synchronize()` before reading the clock at both ends, or time with "
                 "`torch.cuda.Event(enable_timing=True)` and `elapsed_time()`.",
                 false);
}

}  // namespace synclint::python
