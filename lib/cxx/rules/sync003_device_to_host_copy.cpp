#include "cxx/ast_util.h"
#include "cxx/rules/rules.h"

namespace synclint::cxx {

using namespace clang;

namespace {
constexpr std::string_view kCopyWhat = "copies a GPU tensor to host memory and waits for all queued GPU work";
constexpr std::string_view kCopyFix =
    "Keep results on the GPU and copy them once per logging interval; for a copy that overlaps with compute, "
    "use `.to(torch::kCPU, /*non_blocking=*/true)` into pinned memory and wait on a CUDA event before reading it.";

bool non_blocking(const CallExpr* c) {
  for (unsigned i = 1; i < c->getNumArgs(); ++i)
    if (c->getArg(i)->getType()->isBooleanType() && is_true_literal(c->getArg(i))) return true;
  return false;
}
}  // namespace

// t.cpu(), t.to(torch::kCPU), t.to(torch::Device("cpu")), host.copy_(gpu): one finding per chain (the
// data_ptr<T>() or accessor that follows reads the host copy).
void register_sync003(const Rule& rule, MatchFinder& f, MatchFinder::MatchCallback* cb) {
  match_catalog_apis(rule, f, cb);
}

void check_sync003(const MatchResult& r, RuleContext& c) {
  Site s = site_of(r);
  if (!s.call) return;
  static constexpr std::string_view kBuiltin[] = {"cpu", "to", "copy_"};
  if (check_declared_api(c, s, kBuiltin)) return;
  if (!s.tensor_method || !is_catalog_method(c, s)) return;
  if (s.method == "cpu") {
    Dev d = c.device.of(s.object);
    if (d != Dev::Host) c.out.report(c.rule, s.call, confidence_of(d), kCopyWhat, kCopyFix);
  } else if (s.method == "to") {
    if (s.call->getNumArgs() < 1 || c.device.target(s.call->getArg(0)) != Dev::Host || non_blocking(s.call)) return;
    Dev d = c.device.of(s.object);
    if (d != Dev::Host) c.out.report(c.rule, s.call, confidence_of(d), kCopyWhat, kCopyFix);
  } else if (s.method == "copy_") {
    if (s.call->getNumArgs() < 1 || non_blocking(s.call) || c.device.of(s.object) != Dev::Host) return;
    Dev d = c.device.of(s.call->getArg(0));
    if (on_device(d)) c.out.report(c.rule, s.call, confidence_of(d), kCopyWhat, kCopyFix);
  }
}

}  // namespace synclint::cxx
