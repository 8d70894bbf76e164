#include "python/rules/rules.h"

namespace synclint::python {

namespace {
constexpr std::string_view kBlockingCopyFix =
    "Create the DataLoader with `pin_memory=True` and copy with `.to(device, non_blocking=True)`; build "
    "constant tensors once, outside the loop.";
}

// .to(device)/.cuda() of host data without non_blocking=True, and torch.tensor(data, device='cuda').
void sync011_blocking_host_to_device_copy(const Rule& rule, const CallInfo& call, Checker& checker) {
  Confidence conf = Confidence::High;
  if (call.api_kind == "methods") {
    if (call.recv.kind != VK::HostTensor) return;
    if (call.method == "to") {
      if (!cuda_target(call.arg(0, "device"), checker, conf)) return;
    } else if (call.method != "cuda") {
      return check_declared_api(rule, call, checker);
    }
    const Arg* nb = call.keyword("non_blocking");
    if (nb && kind(strip_parens(nb->node)) != K::False) return;
    // Machine-applicable part of the fix: ask for the asynchronous copy (pinning is the loader's job).
    std::vector<TextEdit> edits;
    Node args = field(call.node, "arguments");
    if (!nb && kind(args) == K::ArgumentList)
      edits.push_back({checker.before_end(args), call.args.empty() ? "non_blocking=True" : ", non_blocking=True"});
    checker.report(rule, call.node, std::min(conf, call.recv.conf),
                   "copies host data to the GPU without non_blocking=True: a blocking copy that synchronizes the "
                   "stream",
                   kBlockingCopyFix, true, std::move(edits));
    return;
  }
  if (!cuda_target(call.keyword("device"), checker, conf)) return;
  const Arg* data = call.positional(0);
  if (data && data->value.on_device()) return;
  checker.report(rule, call.node, conf,
                 "builds a GPU tensor from host data: a blocking copy that synchronizes the stream", kBlockingCopyFix);
}

// A loop over a loader that a library prepared for the device (accelerate's `prepare`): the library copies
// every batch to the GPU without non_blocking, a stream synchronization per step.
void sync011_blocking_loader(const Rule& rule, const IterationInfo& loop, Checker& checker) {
  if (loop.source.kind != VK::Loader || !loop.source.cuda || !loop.source.blocking) return;
  checker.report(rule, loop.node, loop.source.conf,
                 "draws batches from a loader prepared for the device, which copies each batch to the GPU "
                 "without non_blocking: a blocking copy that synchronizes the stream",
                 "Ask the library for asynchronous copies from pinned memory (accelerate: "
                 "`Accelerator(dataloader_config=DataLoaderConfiguration(non_blocking=True))` with a "
                 "`pin_memory=True` DataLoader).");
}

}  // namespace synclint::python
