#include "python/rules/rules.h"

namespace synclint::python {

// float(t), int(t), bool(t), complex(t), round(t), math.isnan(t), ... of a GPU tensor: `.item()` in disguise;
// Python's all(t)/any(t) of one, a conversion per element.
void sync004_scalar_conversion(const Rule& rule, const CallInfo& call, Checker& checker) {
  if (call.api_kind == "methods") return check_declared_api(rule, call, checker);
  // Builtins convert their first argument; math functions every argument (math.isclose(a, b)).
  const Arg* a = call.positional(0);
  if (call.api_kind == "functions")
    for (std::size_t i = 0; (!a || !a->value.on_device()) && call.positional(i); ++i) a = call.positional(i);
  if (!a || !a->value.on_device()) return;
  if (call.builtin == "all" || call.builtin == "any") {
    // Python's all()/any() iterate the tensor and call bool() on each element: one read per element.
    checker.report(rule, call.node, a->value.conf,
                   "iterates a GPU tensor and converts each element to a Python bool, one copy to the host and "
                   "wait for all queued GPU work per element",
                   "Use the tensor method (`t.all()`, `t.any()`) and read its one result, or keep it on the GPU.");
    return;
  }
  checker.report(rule, call.node, a->value.conf,
                 "converts a GPU tensor to a Python number, which copies it to the host and waits for all "
                 "queued GPU work",
                 "Compare and accumulate as tensors on the GPU; convert to a Python number once per logging "
                 "interval.");
}

}  // namespace synclint::python
