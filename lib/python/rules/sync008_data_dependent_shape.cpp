#include "python/rules/rules.h"

namespace synclint::python {

namespace {
constexpr std::string_view kShapeWhat =
    "has an output size that depends on GPU values, so PyTorch reads it on the host and waits for all "
    "queued GPU work";
constexpr std::string_view kShapeFix =
    "Use a fixed-shape alternative (`torch.where(mask, x, 0)`, `masked_fill`, multiplying by the mask), pass the "
    "size explicitly (`output_size=`, `num_classes=`), or move the step out of the hot loop.";

bool python_int(const Arg* a) {
  return a && (a->value.kind == VK::Host || kind(strip_parens(a->node)) == K::Integer);
}
}  // namespace

// nonzero, masked_select, unique, repeat_interleave without output_size, one_hot without num_classes,
// single-argument torch.where.
void sync008_data_dependent_shape(const Rule& rule, const CallInfo& call, Checker& checker) {
  const std::string_view name = call.api_kind == "methods" ? call.method : std::string_view(call.qualified);
  const bool repeat = name.ends_with("repeat_interleave");
  if (repeat && call.keyword("output_size")) return;
  const Value* subject = nullptr;
  if (call.api_kind == "methods") {
    subject = &call.recv;
    if (repeat && python_int(call.arg(0, "repeats"))) return;
  } else {
    const Arg* a0 = call.positional(0);
    if (!a0) return;
    subject = &a0->value;
    if (name.ends_with(".where")) {
      std::size_t positional = 0;
      for (const Arg& a : call.args) positional += a.keyword.empty() ? 1 : 0;
      if (positional != 1 || call.args.size() != 1) return;
    } else if (name.ends_with("one_hot")) {
      const Arg* nc = call.arg(1, "num_classes");
      if (nc && checker.text(nc->node) != "-1") return;
    } else if (repeat) {
      const Arg* repeats = call.arg(1, "repeats");
      if (repeats && python_int(repeats)) return;
    }
  }
  if (!subject->on_device()) return;
  checker.report(rule, call.node, subject->conf, kShapeWhat, kShapeFix);
}

// x[mask] with a boolean GPU mask, and x[mask] = tensor (x[mask] = 0.0 does not sync).
void sync008_mask_index(const Rule& rule, const SubscriptInfo& site, Checker& checker) {
  if (!site.base.on_device()) return;
  const Value* mask = nullptr;
  for (const Value& v : site.index)
    if (v.on_device() && v.mask) mask = &v;
  if (!mask) return;
  if (site.store && !site.stored.on_device()) return;
  checker.report(rule, site.node, std::min(mask->conf, site.base.conf),
                 site.store ? "assigns a GPU tensor through a boolean mask, which needs the number of selected "
                              "elements on the host and waits for all queued GPU work"
                            : "indexes with a boolean GPU mask: the result size depends on GPU values, so "
                              "PyTorch reads it on the host and waits for all queued GPU work",
                 kShapeFix);
}

}  // namespace synclint::python
