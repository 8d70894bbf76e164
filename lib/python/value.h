// What the device inference knows about one Python value at one point of a function.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/finding.h"

namespace synclint::python {

enum class VK : std::uint8_t {
  Unknown,
  Host,        // a Python value on the host (number, string, bool, None, host result of a sync)
  HostTensor,  // host data that can be copied to the GPU: CPU tensor, numpy array, DataLoader batch
  Device,      // a tensor on the GPU
  Module,      // an nn.Module (cuda=true once moved to a CUDA device)
  DeviceSpec,  // a device: 'cuda', torch.device('cpu'), ... (cuda says which)
  Loader,      // a DataLoader (iterating it yields host batches)
  Params,      // model.parameters() / named_parameters(): iterating yields parameters
  Container,   // list/tuple/dict/set: items or a summary of the elements
  Instance,    // an instance of a project class (id = class id)
  Scaler,      // torch.amp.GradScaler
  Optimizer,   // torch.optim.* (fused)
  Stream,      // torch.cuda.Stream / Event
  Timer,       // a host clock reading (id = timer id)
  Logger,      // logging.getLogger(...)
  ModuleRef,   // an imported module or external symbol (name = canonical dotted name)
  FuncRef,     // a project function (id)
  ClassRef,    // a project class (id)
  NoiseSchedule,  // a diffusers noise scheduler (name = its class): CPU tables, computes on its inputs' device
};

struct Value {
  VK kind = VK::Unknown;
  Confidence conf = Confidence::High;
  bool mask = false;        // Device: a boolean tensor (comparison result, isnan, ...)
  bool cuda = false;        // DeviceSpec: a CUDA device; Module: moved to a CUDA device; Loader: yields GPU batches
  bool blocking = false;    // Loader: copies each batch to the GPU with a blocking copy (no non_blocking)
  bool fused = false;       // Optimizer: created with fused=True
  bool number = false;      // Host: a Python number
  bool named_params = false;  // Params: (name, parameter) pairs
  std::int32_t count = -1;  // Container/Params: statically known element count
  std::int32_t id = -1;     // Instance/Module/ClassRef: class id; FuncRef: function id; Timer: timer id
  std::string name;         // ModuleRef: canonical dotted name
  std::shared_ptr<const std::vector<Value>> items;  // Container: positional items, or one element summary
  bool positional = false;  // Container: items are positions (tuple/list literal), not a summary

  static Value unknown() { return {}; }
  static Value host(bool number = false) {
    Value v;
    v.kind = VK::Host;
    v.number = number;
    return v;
  }
  static Value of(VK k, Confidence c = Confidence::High) {
    Value v;
    v.kind = k;
    v.conf = c;
    return v;
  }
  static Value device(Confidence c = Confidence::High, bool mask = false) {
    Value v = of(VK::Device, c);
    v.mask = mask;
    return v;
  }
  static Value module_ref(std::string dotted) {
    Value v = of(VK::ModuleRef);
    v.name = std::move(dotted);
    return v;
  }
  static Value container(std::vector<Value> items, bool positional);

  bool is(VK k) const { return kind == k; }
  // A tensor on the GPU (or a module on the GPU used as a tensor source).
  bool on_device() const { return kind == VK::Device; }
  bool host_like() const { return kind == VK::Host || kind == VK::HostTensor; }
  // The element one gets by iterating or indexing this value.
  Value element() const;
  // Item `i` of a positional container, else element().
  Value item(std::size_t i) const;
  // Does this value or any item it holds live on the GPU? (bounded depth)
  bool holds_device(int depth = 0) const;
  // The most confident device item inside (for confidence of container findings).
  Confidence device_conf(int depth = 0) const;
  bool same(const Value& o) const;
};

// The value after two control-flow paths meet: a device value on either path wins (the code means to run
// on the GPU); two host values stay host; anything else becomes unknown.
Value join(const Value& a, const Value& b);

Confidence min_conf(Confidence a, Confidence b);

}  // namespace synclint::python
