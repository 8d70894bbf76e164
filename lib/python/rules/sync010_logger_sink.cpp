#include "python/library_model.h"
#include "python/rules/rules.h"

namespace synclint::python {

// wandb.log({...}), writer.add_scalar(tag, t), add_scalars, mlflow.log_metric(s), fabric.log(name, t) and
// evaluate's metric.add_batch(...), mmengine's message_hub.update_scalar(s)(...) with GPU tensors.
void sync010_logger_sink(const Rule& rule, const CallInfo& call, Checker& checker) {
  const Value* bad = nullptr;
  if (call.api_kind == "methods") {
    if (call.recv.on_device() || call.recv.kind == VK::Logger) return;
    if (call.method == "add_scalar" || call.method == "add_histogram") {
      const Arg* v = call.arg(1, call.method == "add_scalar" ? "scalar_value" : "values");
      if (v && v->value.on_device()) bad = &v->value;
    } else if (call.method == "log") {
      // run.log({...}): a dict of metrics (a logging.Logger's log(level, msg) is SYNC005's); Fabric's
      // `fabric.log(name, value, step)` hands the value to its loggers, which convert it.
      const bool fabric = contains_ci(checker.text(call.receiver), "fabric");
      for (const Arg& a : call.args)
        if ((a.value.kind == VK::Container && !a.value.positional && a.value.holds_device()) ||
            (fabric && a.value.on_device()))
          bad = &a.value;
    } else if (call.method == "add_scalars" || call.method == "log_metric" || call.method == "log_metrics" ||
               call.method == "add_batch" || call.method == "update_scalar" || call.method == "update_scalars") {
      for (const Arg& a : call.args)
        if (a.value.holds_device()) bad = &a.value;
    } else {
      return check_declared_api(rule, call, checker);
    }
  } else {
    for (const Arg& a : call.args)
      if (a.value.holds_device()) bad = &a.value;
  }
  if (!bad) return;
  checker.report(rule, call.node, bad->device_conf(),
                 "passes a GPU tensor to an experiment logger, which converts it on the host and waits for all "
                 "queued GPU work",
                 "Log host values read once per logging interval: stack the statistics on the GPU and convert "
                 "them with one `.tolist()` at the interval.");
}

}  // namespace synclint::python
