#include "cxx/ast_util.h"
#include "cxx/rules/edits.h"
#include "cxx/rules/rules.h"

namespace synclint::cxx {

using namespace clang;

// host.to(device) / host.cuda() without non_blocking=true in hot code (a non_blocking copy from pinned
// memory, TensorOptions().pinned_memory(true), is asynchronous).
void register_sync011(const Rule& rule, MatchFinder& f, MatchFinder::MatchCallback* cb) {
  match_catalog_apis(rule, f, cb);
}

void check_sync011(const MatchResult& r, RuleContext& c) {
  Site s = site_of(r);
  if (!s.call) return;
  static constexpr std::string_view kBuiltin[] = {"to", "cuda"};
  if (check_declared_api(c, s, kBuiltin)) return;
  if (!s.tensor_method || !is_catalog_method(c, s)) return;
  Dev target = s.method == "cuda" ? Dev::Cuda : Dev::Unknown;
  bool non_blocking = false;
  if (s.method == "to") {
    if (s.call->getNumArgs() < 1) return;
    target = c.device.target(s.call->getArg(0));
  }
  for (unsigned i = s.method == "to" ? 1 : 0; i < s.call->getNumArgs(); ++i)
    if (s.call->getArg(i)->getType()->isBooleanType() && is_true_literal(s.call->getArg(i))) non_blocking = true;
  if (!on_device(target)) return;
  Dev from = c.device.of(s.object);
  if (from != Dev::Host && from != Dev::Unknown) return;
  if (non_blocking) return;  // asynchronous from pinned memory; the loader's pinning is not visible here
  Confidence conf = std::min(confidence_of(target), from == Dev::Host ? Confidence::High : Confidence::Low);
  // The machine-applicable part of the fix, as in Python: ask for the asynchronous copy of `to(device)`
  // (pinning the source is the loader's or the allocation's job). cuda() takes no such argument.
  std::vector<Insertion> edits;
  const auto defaulted = [&](unsigned i) { return isa<CXXDefaultArgExpr>(s.call->getArg(i)); };
  if (s.method == "to" && s.member && s.call->getNumArgs() >= 2 && !defaulted(0) && defaulted(1) &&
      s.call->getArg(1)->getType()->isBooleanType())
    edits.push_back({s.member->getRParenLoc(), ", /*non_blocking=*/true"});
  if (auto* sink = dynamic_cast<EditSink*>(&c.out)) sink->edits_for_next_report(std::move(edits));
  c.out.report(c.rule, s.call, conf,
               "copies host data to the GPU without non_blocking=true: a blocking copy that synchronizes the "
               "stream",
               "Allocate the host tensor pinned (`torch::TensorOptions().pinned_memory(true)`, or a data loader "
               "that pins its batches) and copy with `.to(device, /*non_blocking=*/true)`; build constant tensors "
               "once, outside the loop.");
}

}  // namespace synclint::cxx
