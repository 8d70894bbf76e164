// The library model of the device inference: what calls into PyTorch, numpy, the standard library and
// Python's builtins give back (a GPU tensor, host data, a module, a loader...), from the names called and
// the values of their arguments, and which names are host metadata. The catalog says which APIs read a
// value to the host or a host clock ([apis.python] returns = "host" / "timer"); project code (functions,
// classes) is the walker's.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/catalog.h"
#include "python/rules/rules.h"
#include "python/value.h"

namespace synclint::python {

// Does `hay` contain `needle` (lower case), ignoring the case of ASCII letters?
bool contains_ci(std::string_view hay, std::string_view needle);
// "b" of "a.b", the name itself when it has no dot.
std::string_view last_part(std::string_view dotted);

// Names.
bool host_attribute(std::string_view name);        // tensor attributes that are host metadata (shape, dtype)
bool host_method(std::string_view name);           // tensor methods that return host metadata (size, dim)
bool mask_method(std::string_view name);           // tensor methods that give a boolean tensor (eq, isnan)
bool module_method(std::string_view name);         // nn.Module methods that return the module (train, half)
bool factory(std::string_view name);               // torch factories (zeros, arange, tensor)
bool collecting_method(std::string_view name);     // container methods that add their argument (append)
bool loader_name(std::string_view name);           // a name that holds a data loader when nothing else is known
bool batch_source_name(std::string_view name);     // a loop over it is the batch loop of an epoch loop
bool tensor_callable_name(std::string_view name);  // an unknown callable that looks like a model or a loss
bool interval_test_name(std::string_view name);    // a library's "is this a logging step" test (should_log)
bool options_name(std::string_view name);          // parsed options: args, opt, cfg, hparams

// Does the call have arguments, all of them plain Python values (numbers, strings, bools)? A module fed
// only those computes a summary or a host result (a FLOP estimate, a prompt's images), not a GPU output.
bool only_host_arguments(const CallInfo& ci);

// What a parameter without call-site facts or default holds, from its name: a device spec ("device"),
// a device tensor for the tensor parameters of per-step callbacks ("batch", "logits"), else unknown.
Value parameter_guess(std::string_view name, bool callback);
// The value of a string literal as written (quotes and prefixes included): "cuda" and "cuda:N" are CUDA
// device specs, "cpu", "mps", "meta" other device specs, anything else a host value.
Value string_literal_value(std::string_view literal);
// A decimal integer literal (`3`, `10_000`, `-1`, in parentheses or not), else nothing.
std::optional<long> integer_literal(Node n, const Checker& code);

// The calls and attributes of the libraries; `code` gives the text of the nodes of a call.
class LibraryModel {
 public:
  LibraryModel(const Catalog& catalog, const Checker& code) : catalog_(catalog), code_(code) {}

  // Does the catalog declare the Python API `name` of `kind` ("methods", "functions", "builtins") as
  // returning `what` ("host", "timer")?
  bool returns(std::string_view kind, std::string_view name, std::string_view what) const;
  // A call of a builtin (ci.builtin: "len", "zip", "float").
  Value builtin_call(const CallInfo& ci) const;
  // A call of the external function `q` (canonical dotted name) that is not a timer.
  Value function_call(const CallInfo& ci, const std::string& q) const;
  // A method call on a receiver that is not a project class's (ci.recv); sets `work` when it queues GPU
  // work (an optimizer's step).
  Value method_call(const CallInfo& ci, bool& work) const;
  // A call of an unknown callable (`callee`, not a project function, class or external name): a device
  // result only when it looks like a model or a loss and an argument is on the device.
  Value unknown_call(const CallInfo& ci, const Value& callee) const;
  // A library call asked for PyTorch or NumPy tensors (`tokenizer(text, return_tensors="pt")`, a
  // processor's images): it builds them on the CPU.
  bool builds_host_tensors(const CallInfo& ci) const;
  // Attribute `name` of `recv` (not a module reference, nor a project class's attribute).
  Value attribute(const Value& recv, std::string_view name) const;

 private:
  enum class Placement { None, Blocking, Async };
  static Placement launcher_placement(std::string_view method, std::string_view receiver);
  // The values a launcher's wrapping call gives back: models on the device, loaders of GPU batches.
  Value placed(const CallInfo& ci, Placement place) const;
  static Value gradient_norm(const CallInfo& ci, std::string_view name);
  // A diffusers noise scheduler built from its class (`DDPMScheduler(...)`, `.from_pretrained`,
  // `.from_config`), else unknown.
  static Value noise_schedule(std::string_view q);
  static Value schedule_method(const CallInfo& ci);
  int torch_module_parameters(const CallInfo& ci, std::string_view layer) const;

  const Catalog& catalog_;
  const Checker& code_;
};

}  // namespace synclint::python
