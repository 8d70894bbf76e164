// How many parameter tensors a torch.nn layer has, from its constructor call as written: what
// `model.parameters()` yields, so that a read per parameter can say "22 reads per step".
#pragma once

#include <functional>
#include <string>
#include <string_view>

namespace synclint::python {

// One constructor argument as written: absent, a literal (True/False/None/integer), or anything else.
struct LayerArg {
  enum class Kind { Absent, Literal, Other };
  Kind kind = Kind::Absent;
  long value = 0;  // Literal: True = 1, False/None = 0, integers as they are
};

// The argument given by keyword, or else at `position` (0-based, positional arguments only).
using LayerArgFn = std::function<LayerArg(std::string_view keyword, int position)>;

// Parameter tensors of `torch.nn.<layer>(...)` (layer: the class name, "Conv2d"): 0 for layers without
// parameters (activations, pooling, dropout, losses...), -1 when unknown (an unlisted layer, or an
// argument that decides it is not a literal). Containers (Sequential, ModuleList, ModuleDict) are -1:
// their count is the sum of their items', which the caller knows.
int nn_layer_parameters(std::string_view layer, const LayerArgFn& arg);

// The class attribute (not a Python name) under which the analyzer keeps, between rounds, how many
// parameter tensors an instance of a project nn.Module class has (Value::count, -1 when unknown).
inline const std::string kParametersAttr = "\x01parameters";

}  // namespace synclint::python
