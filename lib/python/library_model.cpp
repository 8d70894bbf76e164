#include "python/library_model.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <initializer_list>

#include "python/nn_layers.h"

namespace synclint::python {
namespace {

bool one_of(std::string_view s, std::initializer_list<std::string_view> names) {
  return std::find(names.begin(), names.end(), s) != names.end();
}

// A name that says it holds a device ("device", "self.device"): a CUDA device spec, else unknown.
Value device_named(std::string_view name) {
  if (!contains_ci(name, "device")) return Value{};
  Value v = Value::of(VK::DeviceSpec, Confidence::Medium);
  v.cuda = true;
  return v;
}

// Helpers of training libraries named for moving a batch to the GPU (fairseq's `move_to_cuda`, Lightning's
// `move_data_to_device`, accelerate's `send_to_device`, Fabric's `to_device`): their result is on it.
bool moves_to_device(std::string_view name) {
  return one_of(name, {"move_to_cuda", "to_cuda", "move_to_device", "move_data_to_device", "send_to_device",
                       "to_device", "batch_to_device"});
}

// Objects that a launcher's prepare()/setup() hands back without moving data: optimizers, LR schedulers.
bool host_object_name(std::string_view name) {
  return contains_ci(name, "optim") || contains_ci(name, "sched");
}

// Does an argument of the call hold a device value? `best`: the highest confidence among those.

bool device_argument(const CallInfo& ci, Confidence& best) {
  bool dev = false;
  best = Confidence::Low;
  for (const Arg& a : ci.args)
    if (a.value.holds_device()) {
      dev = true;
      best = std::max(best, a.value.device_conf());
    }
  return dev;
}

// Parameters of per-step callbacks that the framework hands over on the device.
bool callback_tensor_param(std::string_view n) {
  return one_of(n, {"batch", "x", "y", "inputs", "input", "targets", "target", "labels", "images", "outputs",
                    "logits", "preds", "features"});
}

}  // namespace

// Are there arguments, all of them known host values (numbers, strings, CPU data)? A call fed only those
// computes a summary, not a GPU output.
bool only_host_arguments(const CallInfo& ci) {
  if (ci.args.empty()) return false;
  for (const Arg& a : ci.args) {
    const Value& v = a.value;
    const bool host = v.kind == VK::Host || (v.kind == VK::Container && v.items && !v.items->empty() &&
                                              std::all_of(v.items->begin(), v.items->end(),
                                                          [](const Value& e) { return e.kind == VK::Host; }));
    if (!host) return false;
  }
  return true;
}

bool interval_test_name(std::string_view name) {
  return one_of(name, {"should_log", "should_print", "should_evaluate", "should_eval", "should_save",
                       "is_log_step", "every_n_steps", "every_n_iters"});
}

bool options_name(std::string_view name) {
  return one_of(name, {"args", "opt", "opts", "cfg", "hparams", "flags", "FLAGS"});
}

bool contains_ci(std::string_view hay, std::string_view needle) {
  if (needle.empty()) return true;
  if (needle.size() > hay.size()) return false;
  auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
  for (std::size_t i = 0; i + needle.size() <= hay.size(); ++i) {
    if (lower(hay[i]) != needle[0]) continue;
    std::size_t j = 1;
    while (j < needle.size() && lower(hay[i + j]) == needle[j]) ++j;
    if (j == needle.size()) return true;
  }
  return false;
}

std::string_view last_part(std::string_view dotted) {
  const auto dot = dotted.rfind('.');
  return dot == std::string_view::npos ? dotted : dotted.substr(dot + 1);
}

// Tensor attributes that are host metadata: reading them never syncs.
bool host_attribute(std::string_view a) {
  // Predicates and sizes: `x.is_cuda`, `packed.batch_sizes`, `lengths` tensors live on the host.
  if (a.starts_with("is_") || a.starts_with("has_") || a.ends_with("size") || a.ends_with("sizes") ||
      a.ends_with("lengths"))
    return true;
  return one_of(a, {"shape", "dtype", "device", "ndim", "is_cuda", "requires_grad", "is_leaf", "layout", "names",
                    "itemsize", "nbytes", "is_sparse", "is_quantized", "is_meta", "grad_fn", "output_nr",
                    "_version", "training", "is_mps", "is_cpu"});
}
// Tensor methods that return host metadata without reading values.
bool host_method(std::string_view m) {
  if (m.starts_with("is_") || m.starts_with("has_")) return true;
  return one_of(m, {"size", "dim", "numel", "stride", "data_ptr", "element_size", "is_contiguous", "get_device",
                    "is_floating_point", "is_complex", "nelement", "ndimension", "storage_offset", "__len__",
                    "type", "is_pinned", "is_shared", "untyped_storage", "_nnz", "nnz"});
}
// Tensor methods whose result is a boolean tensor.
bool mask_method(std::string_view m) {
  return one_of(m, {"eq", "ne", "gt", "lt", "ge", "le", "isnan", "isinf", "isfinite", "bool", "logical_and",
                    "logical_or", "logical_not", "logical_xor", "any", "all", "isclose", "isneginf", "isposinf",
                    "signbit", "greater", "less", "equal_", "greater_equal", "less_equal", "not_equal"});
}
// nn.Module methods that return the module itself.
bool module_method(std::string_view m) {
  return one_of(m, {"train", "eval", "requires_grad_", "half", "float", "double", "bfloat16", "apply",
                    "share_memory", "to_empty", "compile"});
}
// torch functions that build a tensor (on the host unless given a device).
bool factory(std::string_view f) {
  return one_of(f, {"tensor", "as_tensor", "zeros", "ones", "empty", "full", "rand", "randn", "randint",
                    "randperm", "arange", "linspace", "logspace", "eye", "zeros_like", "ones_like", "empty_like",
                    "full_like", "rand_like", "randn_like", "randint_like", "from_numpy", "normal",
                    "empty_strided", "tril_indices", "triu_indices", "scalar_tensor", "range"});
}
// List, set and deque methods that add their (last) argument to the receiver.
bool collecting_method(std::string_view m) { return one_of(m, {"append", "add", "insert", "extend", "appendleft"}); }

// A name that holds a data loader when nothing else is known about it.
bool loader_name(std::string_view n) { return contains_ci(n, "loader") || contains_ci(n, "batches") || n == "dl"; }
// An inner loop over such a name (or a dataset) is the batch loop of an epoch loop.
bool batch_source_name(std::string_view n) {
  return loader_name(n) || contains_ci(n, "dataset") || n == "data" || n == "train_data" || n == "val_data";
}
// An unknown callable whose result is a device tensor when its arguments are: a model, a loss, a module.
bool tensor_callable_name(std::string_view n) {
  return contains_ci(n, "loss") || contains_ci(n, "criterion") || contains_ci(n, "model") || contains_ci(n, "net") ||
         contains_ci(n, "module") || contains_ci(n, "encoder") || contains_ci(n, "decoder") ||
         contains_ci(n, "head") || contains_ci(n, "layer") || contains_ci(n, "policy") || contains_ci(n, "critic") ||
         contains_ci(n, "actor") || contains_ci(n, "backbone") || contains_ci(n, "gather") ||
         contains_ci(n, "reduce") || n.ends_with("generate") || n.ends_with("inference_step");
}

Value string_literal_value(std::string_view t) {
  std::size_t b = 0;
  while (b < t.size() && t[b] != '"' && t[b] != '\'') ++b;
  std::string_view body = t.substr(std::min(b, t.size()));
  while (!body.empty() && (body.front() == '"' || body.front() == '\'')) body.remove_prefix(1);
  while (!body.empty() && (body.back() == '"' || body.back() == '\'')) body.remove_suffix(1);
  if (body == "cuda" || body.starts_with("cuda:")) {
    Value v = Value::of(VK::DeviceSpec);
    v.cuda = true;
    return v;
  }
  if (body == "cpu" || body == "mps" || body == "meta") return Value::of(VK::DeviceSpec);
  return Value::host();
}

Value parameter_guess(std::string_view name, bool callback) {
  if (Value d = device_named(name); d.kind != VK::Unknown) return d;
  if (callback && callback_tensor_param(name)) return Value::device(Confidence::Medium);
  return {};
}

std::optional<long> integer_literal(Node n, const Checker& code) {
  n = strip_parens(n);
  bool negative = false;
  if (kind(n) == K::UnaryOperator && code.text(field(n, "operator")) == "-") {
    negative = true;
    n = strip_parens(field(n, "argument"));
  }
  if (kind(n) != K::Integer) return std::nullopt;
  std::string digits;
  for (char ch : code.text(n))
    if (ch != '_') digits += ch;
  char* end = nullptr;
  const long v = std::strtol(digits.c_str(), &end, 10);
  if (digits.empty() || end == nullptr || *end != '\0') return std::nullopt;
  return negative ? -v : v;
}

bool LibraryModel::returns(std::string_view kind, std::string_view name, std::string_view what) const {
  for (const Rule* r : catalog_.rules_for_api(Language::Python, kind, name))
    if (r->returns(Language::Python) == what) return true;
  return false;
}

Value LibraryModel::builtin_call(const CallInfo& ci) const {
  const std::string_view b = ci.builtin;
  const Arg* a0 = ci.positional(0);
  const Value first = a0 ? a0->value : Value{};
  if (one_of(b, {"len", "int", "float", "round", "hash", "id", "ord"})) return Value::host(true);
  if (one_of(b, {"str", "repr", "bool", "print", "isinstance", "hasattr", "callable", "chr", "format",
                 "input", "issubclass", "complex"}))
    return Value::host();
  if (b == "abs") return first;
  if (b == "range") {
    Value v = Value::container({Value::host(true)}, false);
    auto lit = [&](std::size_t i) -> long {
      const Arg* a = ci.positional(i);
      const std::optional<long> v = a ? integer_literal(a->node, code_) : std::nullopt;
      return v ? *v : -1;
    };
    const std::size_t n = ci.args.size();
    if (n == 1 && lit(0) >= 0) v.count = static_cast<std::int32_t>(lit(0));
    if (n == 2 && lit(0) >= 0 && lit(1) >= lit(0)) v.count = static_cast<std::int32_t>(lit(1) - lit(0));
    return v;
  }
  if (b == "enumerate") {
    Value v = Value::container({Value::container({Value::host(true), first.element()}, true)}, false);
    v.count = first.count;
    if (first.kind == VK::Params) v.count = first.count;
    return v;
  }
  if (b == "zip") {
    std::vector<Value> parts;
    std::int32_t count = -1;
    bool known = true;
    for (const Arg& a : ci.args) {
      if (!a.keyword.empty()) continue;
      parts.push_back(a.value.element());
      known = known && a.value.count >= 0;
      if (known) count = count < 0 ? a.value.count : std::min(count, a.value.count);
    }
    const bool counted = known && !parts.empty();
    Value v = Value::container({Value::container(std::move(parts), true)}, false);
    if (counted) v.count = count;  // as long as the shortest
    return v;
  }
  if (one_of(b, {"list", "tuple", "set", "sorted", "reversed", "frozenset", "iter"})) {
    if (first.kind == VK::Params || first.kind == VK::Container || first.kind == VK::Loader) return first;
    if (first.kind == VK::Unknown) return b == "iter" ? Value{} : Value::container({Value{}}, false);
    return Value::container({first.element()}, false);
  }
  if (b == "next") return first.element();
  if (b == "sum") {
    Value e = first.element();
    if (e.on_device()) return Value::device(e.conf);
    return e.kind == VK::Host ? Value::host(true) : Value{};
  }
  if (b == "max" || b == "min") {
    if (ci.args.size() == 1) return first.element();
    Value v = first;
    for (std::size_t i = 1; i < ci.args.size(); ++i)
      if (ci.args[i].keyword.empty()) v = join(v, ci.args[i].value);
    return v;
  }
  if (b == "dict") {
    std::vector<Value> items;
    for (const Arg& a : ci.args) items.push_back(a.keyword.empty() ? a.value.element() : a.value);
    return Value::container(std::move(items), false);
  }
  return {};
}

Value LibraryModel::function_call(const CallInfo& ci, const std::string& q) const {
  const std::string_view last = last_part(q);
  const Arg* a0 = ci.positional(0);
  const bool upper = !last.empty() && std::isupper(static_cast<unsigned char>(last[0]));
  if (Value n = gradient_norm(ci, last); n.kind != VK::Unknown) return n;
  if (moves_to_device(last)) return Value::device(Confidence::Medium);
  if (Value s = noise_schedule(q); s.kind != VK::Unknown) return s;
  if (q.starts_with("torchmetrics.") && upper) {  // a metric: a module that accumulates on its inputs' device
    Value v = Value::of(VK::Module, Confidence::Medium);
    v.name = "torchmetrics";
    return v;
  }
  if (q.starts_with("torch.")) {
    // Wrappers that run the module they get (compiled, data-parallel): its class, methods and device.
    if (a0 && a0->value.kind == VK::Module &&
        one_of(last, {"compile", "DistributedDataParallel", "DataParallel", "FullyShardedDataParallel"}))
      return a0->value;
    if (q == "torch.device") {
      if (a0 && a0->value.kind == VK::DeviceSpec) return a0->value;
      Value v = Value::of(VK::DeviceSpec, Confidence::Medium);
      // `torch.device(f"cuda:{rank}" if cuda_ok else "cpu")`: the code means to run on the GPU when one is there.
      v.cuda = !a0 || code_.text(a0->node).find("cpu") == std::string_view::npos ||
               code_.text(a0->node).find("cuda") != std::string_view::npos;
      if (a0 && code_.text(a0->node).find("cuda") != std::string_view::npos) v.conf = Confidence::High;
      return v;
    }
    if (one_of(last, {"Stream", "Event", "current_stream", "default_stream", "ExternalStream"}))
      return Value::of(VK::Stream);
    if (last == "GradScaler") return Value::of(VK::Scaler);
    if (last == "DataLoader") return Value::of(VK::Loader);
    if (q.starts_with("torch.optim.") && upper && q.find("lr_scheduler") == std::string::npos &&
        q.find("swa_utils") == std::string::npos) {
      Value v = Value::of(VK::Optimizer);
      const Arg* fused = ci.keyword("fused");
      v.fused = is_true_literal(fused, code_);
      return v;
    }
    if (q.starts_with("torch.nn.") && upper && !q.starts_with("torch.nn.functional.") &&
        !q.starts_with("torch.nn.utils.")) {
      Value v = Value::of(VK::Module);
      v.count = torch_module_parameters(ci, last);
      return v;
    }
    if (q.starts_with("torch.cuda.") || q.starts_with("torch.backends.") || q.starts_with("torch.distributed."))
      return Value::host();
    if (factory(last)) {
      Confidence c = Confidence::High;
      const Arg* dtype = ci.keyword("dtype");
      const bool boolean = dtype && last_part(code_.text(dtype->node)) == "bool";
      if (cuda_target(ci.keyword("device"), code_, c)) return Value::device(c, boolean);
      if (last.ends_with("_like") && a0 && a0->value.on_device() && !ci.keyword("device"))
        return Value::device(a0->value.conf);
      return Value::of(VK::HostTensor);
    }
    if (one_of(last, {"equal", "allclose", "is_tensor", "numel", "is_floating_point", "is_complex",
                      "is_grad_enabled", "get_default_dtype", "manual_seed", "is_nonzero"}))
      return Value::host();
    Confidence c;
    if (device_argument(ci, c)) {
      const bool mask = mask_method(last) || one_of(last, {"isnan", "isinf", "isfinite", "logical_and",
                                                           "logical_or", "logical_not", "eq", "ne", "gt", "lt",
                                                           "ge", "le", "any", "all"});
      return Value::device(c, mask);
    }
    // Host tensors in (also as a list, `torch.cat([a, b])`), host tensor out.
    for (const Arg& a : ci.args)
      if (a.value.kind == VK::HostTensor || (a.value.kind == VK::Container && a.value.element().kind == VK::HostTensor))
        return Value::of(VK::HostTensor);
    // A finiteness check of a value from elsewhere (`torch.isfinite(losses)` of a model's output): a tensor
    // mask on that value's device, which is unknown here.
    if (one_of(last, {"isfinite", "isnan", "isinf"}) && a0 && a0->value.kind == VK::Unknown) return Value::device(Confidence::Low, true);
    return {};
  }
  if (q.starts_with("numpy.")) return Value::of(VK::HostTensor);
  if (q.starts_with("math.") || q.starts_with("time.") || q.starts_with("random.") ||
      q.starts_with("statistics.") || q.starts_with("os."))
    return Value::host(true);
  if (q == "logging.getLogger") return Value::of(VK::Logger);
  if (last == "tqdm" || last == "trange") return a0 ? a0->value : Value{};
  if (last == "DataLoader") return Value::of(VK::Loader);
  if (q == "copy.deepcopy" || q == "copy.copy") return a0 ? a0->value : Value{};
  if (last == "from_pretrained") return Value::of(VK::Module, Confidence::Medium);
  // `apply_to_collection(values, Tensor, lambda t: t.item())`: a helper that maps a host converter.
  for (const Arg& a : ci.args)
    if (kind(strip_parens(a.node)) == K::Lambda && a.value.kind == VK::Host) return Value::host();
  Confidence c;
  if (device_argument(ci, c) && !q.starts_with("wandb.") && !q.starts_with("mlflow.") && !q.starts_with("logging."))
    return Value::device(std::min(c, Confidence::Medium));
  return {};
}


// Parameter tensors of `torch.nn.<layer>(...)`: containers sum their items' counts, other layers come
// from the table in nn_layers.cpp; -1 when unknown.
int LibraryModel::torch_module_parameters(const CallInfo& ci, std::string_view layer) const {
  auto module_count = [](const Value& v) { return v.kind == VK::Module ? v.count : -1; };
  auto sum_items = [&](const Value& c) {
    if (c.kind != VK::Container || !c.items) return -1;
    if (!c.positional) {  // a comprehension: its length times its element's count
      const int each = c.items->size() == 1 ? module_count(c.items->front()) : -1;
      return c.count >= 0 && each >= 0 ? c.count * each : -1;
    }
    int total = 0;
    for (const Value& item : *c.items) {
      const int n = module_count(item);
      if (n < 0) return -1;
      total += n;
    }
    return total;
  };
  // An empty container is usually filled later (append, add_module): unknown.
  if ((layer == "Sequential" || layer == "ModuleList" || layer == "ModuleDict") && ci.args.empty()) return -1;
  if (layer == "Sequential") {
    int total = 0;
    for (const Arg& a : ci.args) {
      const int n = a.keyword.empty() ? module_count(a.value) : a.keyword == "*" ? sum_items(a.value) : -1;
      if (n < 0) return -1;
      total += n;
    }
    return total;
  }
  if (layer == "ModuleList") {
    const Arg* a = ci.positional(0);
    return ci.args.size() == 1 && a ? sum_items(a->value) : -1;
  }
  for (const Arg& a : ci.args)
    if (a.keyword == "*" || a.keyword == "**") return -1;  // positions unknown
  return nn_layer_parameters(layer, [&](std::string_view keyword, int position) {
    const Arg* a = ci.arg(static_cast<std::size_t>(position), keyword);
    if (!a) return LayerArg{};
    Node n = strip_parens(a->node);
    switch (kind(n)) {
      case K::True: return LayerArg{LayerArg::Kind::Literal, 1};
      case K::False:
      case K::None: return LayerArg{LayerArg::Kind::Literal, 0};
      case K::Integer:
        if (std::optional<long> v = integer_literal(n, code_)) return LayerArg{LayerArg::Kind::Literal, *v};
        break;
      default: break;
    }
    return LayerArg{LayerArg::Kind::Other, 0};
  });
}

// What a launcher's wrapping call does with the models and loaders it gets: accelerate's
// `accelerator.prepare(...)` places models on the device and wraps loaders that copy each batch there
// without non_blocking; Lightning Fabric's `fabric.setup(...)`/`setup_module` places models and
// `setup_dataloaders(...)` wraps loaders that copy each batch with non_blocking on CUDA.
LibraryModel::Placement LibraryModel::launcher_placement(std::string_view m, std::string_view receiver) {
  if (m == "prepare" && contains_ci(receiver, "accelerator")) return Placement::Blocking;
  if ((m == "setup" || m == "setup_module" || m == "setup_dataloaders") && contains_ci(receiver, "fabric"))
    return Placement::Async;
  return Placement::None;
}

// The total norm that gradient clipping returns (`torch.nn.utils.clip_grad_norm_`, `get_total_norm`, the
// same methods of an FSDP model or a launcher): a 0-dim tensor on the parameters' device.
Value LibraryModel::gradient_norm(const CallInfo& ci, std::string_view name) {
  if (!one_of(name, {"clip_grad_norm_", "get_total_norm", "clip_grad_norm"})) return {};
  for (const Arg& a : ci.args) {
    if (a.value.kind == VK::Params) return Value::device(a.value.conf);
    if (a.value.holds_device()) return Value::device(a.value.device_conf());
    if (a.value.kind == VK::Module && a.value.cuda) return Value::device(a.value.conf);
  }
  if (ci.recv.kind == VK::Module && ci.recv.cuda) return Value::device(ci.recv.conf);
  return Value::device(Confidence::Medium);
}

Value LibraryModel::noise_schedule(std::string_view q) {
  if (!q.starts_with("diffusers.")) return {};
  std::string_view cls = q;
  if (const std::string_view m = last_part(q); m == "from_pretrained" || m == "from_config")
    cls = q.substr(0, q.size() - m.size() - 1);
  cls = last_part(cls);
  if (!cls.ends_with("Scheduler") || cls.size() == 9) return {};
  Value v = Value::of(VK::NoiseSchedule);
  v.name = cls;
  return v;
}

// A method of a diffusers noise scheduler: `add_noise`, `step`, `scale_model_input`, `get_velocity` compute
// on their tensor arguments' device (the scheduler copies what it needs); the rest (`set_timesteps`,
// `save_pretrained`) are host calls.
Value LibraryModel::schedule_method(const CallInfo& ci) {
  if (!one_of(ci.method, {"add_noise", "step", "scale_model_input", "get_velocity", "add_noise_to_input"}))
    return Value::host();
  Confidence c;
  if (device_argument(ci, c)) return Value::device(c);
  for (const Arg& a : ci.args)
    if (a.value.kind == VK::HostTensor) return Value::of(VK::HostTensor, a.value.conf);
  return {};
}

Value LibraryModel::placed(const CallInfo& ci, Placement place) const {
  std::vector<Value> out;
  for (const Arg& a : ci.args) {
    if (!a.keyword.empty()) continue;
    Value v = a.value;
    const std::string_view name = last_part(code_.text(a.node));
    if (v.kind == VK::Unknown && loader_name(name)) v = Value::of(VK::Loader, Confidence::Medium);
    if (v.kind == VK::Loader || ci.method == "setup_dataloaders") {
      v = Value::of(VK::Loader, Confidence::Medium);
      v.cuda = true;
      v.blocking = place == Placement::Blocking;
    } else if (v.kind == VK::Unknown && host_object_name(name)) {
      v = Value{};
    } else if (v.kind == VK::Module || v.kind == VK::Unknown) {
      v = Value::of(VK::Module, Confidence::Medium);
      v.cuda = true;
      if (a.value.kind == VK::Module) {
        v.id = a.value.id;
        v.count = a.value.count;
      }
    }
    out.push_back(v);
  }
  if (out.size() == 1) return out[0];
  return Value::container(std::move(out), true);
}

Value LibraryModel::method_call(const CallInfo& ci, bool& work) const {
  const Value& rv = ci.recv;
  const std::string_view m = ci.method;
  // Catalog APIs that read a value on the host return host values.
  auto syncing_method = [&]() { return returns("methods", m, "host"); };
  if ((rv.kind == VK::Device || rv.kind == VK::Module || rv.kind == VK::Unknown) &&
      (m == "item" || m == "tolist" || host_method(m) || syncing_method()))
    return Value::host(true);
  if (Value n = gradient_norm(ci, m); n.kind != VK::Unknown) return n;
  if (moves_to_device(m) && rv.kind != VK::Container) return Value::device(Confidence::Medium);
  // Byte and digest methods no tensor has (PIL images, numpy arrays, hashes): host bytes and strings.
  if (one_of(m, {"tobytes", "hexdigest", "digest"})) return Value::host();
  Confidence tc = Confidence::High;
  if (m == "parameters" || m == "named_parameters") {
    Value v = Value::of(VK::Params, rv.kind == VK::Module && rv.cuda ? rv.conf : Confidence::Medium);
    v.named_params = m == "named_parameters";
    if (rv.kind == VK::Module) v.count = rv.count;  // parameter tensors, when known
    return v;
  }
  switch (rv.kind) {
    case VK::Device: {
      if (m == "cpu" || m == "numpy") return Value::of(VK::HostTensor);
      if (m == "to") {
        if (cpu_target(ci.arg(0, "device"), code_)) return Value::of(VK::HostTensor);
        return Value::device(rv.conf);
      }
      if (m == "cuda") return Value::device(rv.conf);
      if (host_method(m) || syncing_method() || m == "tolist" || m == "item") return Value::host(true);
      if (mask_method(m)) return Value::device(rv.conf, true);
      // A tensor has no `items`/`keys`: what has them is a dict of device values (a framework's outputs).
      if (m == "items") return Value::container({Value::container({Value::host(), Value::device(rv.conf)}, true)}, false);
      if (m == "keys") return Value::container({Value::host()}, false);
      return Value::device(rv.conf, rv.mask && one_of(m, {"clone", "detach", "T", "t", "view", "reshape",
                                                          "flatten", "squeeze", "unsqueeze", "contiguous"}));
    }
    case VK::HostTensor: {
      // A host boolean mask stays a mask once copied to the GPU.
      if (m == "cuda") return Value::device(rv.conf == Confidence::High ? Confidence::High : Confidence::Medium, rv.mask);
      if (m == "to") {
        if (cuda_target(ci.arg(0, "device"), code_, tc)) return Value::device(std::min(tc, Confidence::High), rv.mask);
        Value v = Value::of(VK::HostTensor, rv.conf);
        const Arg* dtype = ci.arg(0, "dtype");
        v.mask = rv.mask || (dtype && last_part(code_.text(dtype->node)) == "bool");
        return v;
      }
      if (m == "item" || m == "tolist" || host_method(m)) return Value::host(true);
      Value v = Value::of(VK::HostTensor, rv.conf);
      v.mask = mask_method(m);
      return v;
    }
    case VK::Module:
      if (m == "to" || m == "cuda") {
        Value v = rv;
        if (m == "cuda" || cuda_target(ci.arg(0, "device"), code_, tc)) v.cuda = true;
        return v;
      }
      if (m == "parameters" || m == "named_parameters" || m == "buffers") {
        Value v = Value::of(VK::Params, rv.cuda ? rv.conf : Confidence::Medium);
        v.named_params = m == "named_parameters";
        if (m != "buffers") v.count = rv.count;
        return v;
      }
      if (module_method(m)) return rv;
      // A torchmetrics metric's result: its states live where the training values that update it do.
      if (rv.name == "torchmetrics" && one_of(m, {"compute", "forward"})) return Value::device(Confidence::Medium);
      if (one_of(m, {"state_dict", "modules", "children", "named_modules", "zero_grad", "register_buffer",
                     "load_state_dict", "register_forward_hook"}))
        return {};
      // Another method of a module on the GPU: its output when fed GPU (or unknown) data, not when it
      // only gets host values (a summary such as a parameter count, a learning rate, a FLOP estimate).
      if (rv.cuda && !only_host_arguments(ci)) return Value::device(rv.conf);
      return {};
    case VK::Params: return rv;
    case VK::Loader: return m == "__iter__" ? rv : Value{};
    case VK::Container:
      if (one_of(m, {"items", "values", "copy", "pop", "get", "popleft", "__getitem__"})) {
        if (m == "pop" || m == "get" || m == "popleft") return rv.element();
        if (m == "items") return Value::container({Value::container({Value::host(), rv.element()}, true)}, false);
        return rv;
      }
      return {};
    case VK::Optimizer:
      if (m == "step" || m == "zero_grad") work = true;
      return Value::host();
    case VK::Scaler:
      if (m == "scale") return ci.positional(0) ? ci.positional(0)->value : Value{};
      return Value::host();
    case VK::Stream: return m == "record_event" ? Value::of(VK::Stream) : Value::host();
    case VK::NoiseSchedule: return schedule_method(ci);
    case VK::Logger: return Value::host();
    case VK::Host:
    case VK::DeviceSpec: return Value::host();
    default: break;
  }
  // Unknown receiver.
  if (m == "from_pretrained") return Value::of(VK::Module, Confidence::Medium);
  if (const Placement place = launcher_placement(m, code_.text(ci.receiver)); place != Placement::None)
    return placed(ci, place);
  if ((m == "to" || m == "cuda") && kind(strip_parens(ci.receiver)) == K::Call) {
    // `Net(...).to(device)`: a module built by a class this analysis cannot see.
    Node ctor = strip_parens(field(strip_parens(ci.receiver), "function"));
    const std::string_view name = last_part(code_.text(ctor));
    if (!name.empty() && std::isupper(static_cast<unsigned char>(name[0]))) {
      Value v = Value::of(VK::Module, Confidence::Medium);
      v.cuda = m == "cuda" || cuda_target(ci.arg(0, "device"), code_, tc);
      return v;
    }
  }
  if (m == "parameters" || m == "named_parameters") {
    Value v = Value::of(VK::Params, Confidence::Medium);
    v.named_params = m == "named_parameters";
    return v;
  }
  if (m == "item" || m == "tolist" || host_method(m) || syncing_method()) return Value::host(true);
  if (m == "cpu" || m == "numpy") return Value::of(VK::HostTensor);
  if (m == "cuda") return Value::device(Confidence::Medium);
  if (m == "to" && cuda_target(ci.arg(0, "device"), code_, tc)) return Value::device(Confidence::Medium);
  if (m == "synchronize" || m == "record" || m == "elapsed_time" || m == "format" || m == "join" ||
      m == "startswith" || m == "endswith")
    return Value::host();
  Confidence best;
  if (device_argument(ci, best) && tensor_callable_name(m)) return Value::device(std::min(best, Confidence::Medium));
  return {};
}

bool LibraryModel::builds_host_tensors(const CallInfo& ci) const {
  const Arg* rt = ci.keyword("return_tensors");
  if (!rt || kind(strip_parens(rt->node)) != K::String) return false;
  const std::string_view t = code_.text(rt->node);
  return t.find("pt") != std::string_view::npos || t.find("np") != std::string_view::npos;
}

Value LibraryModel::unknown_call(const CallInfo& ci, const Value& callee) const {
  Node fn = strip_parens(field(ci.node, "function"));
  if (callee.kind != VK::Device && !tensor_callable_name(last_part(code_.text(fn)))) return {};
  Confidence best;
  if (device_argument(ci, best)) return Value::device(std::min(best, Confidence::Medium));
  return {};
}

Value LibraryModel::attribute(const Value& recv, std::string_view name) const {
  switch (recv.kind) {
    case VK::Device: {
      if (name == "device") {  // `x.device` of a GPU tensor: its CUDA device (metadata, no read)
        Value d = Value::of(VK::DeviceSpec, recv.conf);
        d.cuda = true;
        return d;
      }
      if (host_attribute(name)) return Value::host();
      Value v = Value::device(recv.conf, (name == "T" || name == "mT") && recv.mask);
      return v;
    }
    case VK::HostTensor: return host_attribute(name) ? Value::host() : Value::of(VK::HostTensor, recv.conf);
    case VK::Module:
    case VK::Instance: {
      if (Value d = device_named(name); d.kind != VK::Unknown) return d;
      if (recv.kind == VK::Module) {
        if (name == "training") return Value::host();
        if (recv.cuda && (name == "weight" || name == "bias" || name.ends_with("_weight") || name.ends_with("_bias") ||
                          name == "running_mean" || name == "running_var"))
          return Value::device(recv.conf);
        Value m = Value::of(VK::Module, recv.conf);
        m.cuda = recv.cuda;
        return m;
      }
      return contains_ci(name, "loader") ? Value::of(VK::Loader, Confidence::Medium) : Value{};
    }
    case VK::NoiseSchedule:  // its tables stay on the CPU (diffusers keeps them there); the rest is config
      if (one_of(name, {"sigmas", "timesteps", "alphas_cumprod", "alphas", "betas", "alpha_t", "sigma_t",
                        "lambda_t", "final_alpha_cumprod", "log_sigmas"}))
        return Value::of(VK::HostTensor, recv.conf);
      return Value::host();
    case VK::Optimizer:
    case VK::Scaler:
    case VK::Loader:
    case VK::Host:
      return name == "dataset" ? Value{} : Value::host();
    default:
      if (loader_name(name)) return Value::of(VK::Loader, Confidence::Medium);
      return device_named(name);
  }
}

}  // namespace synclint::python
