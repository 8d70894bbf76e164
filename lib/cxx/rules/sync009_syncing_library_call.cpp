#include "cxx/ast_util.h"
#include "cxx/rules/rules.h"

namespace synclint::cxx {

using namespace clang;

// torch::equal / allclose (a C++ bool from GPU tensors) and torch::nn::utils::clip_grad_norm_, which in
// LibTorch returns the total norm as a double: one read on the host per call, with or without
// error_if_nonfinite (which only moves that read before the clipping).
void register_sync009(const Rule& rule, MatchFinder& f, MatchFinder::MatchCallback* cb) {
  match_catalog_apis(rule, f, cb);
}

void check_sync009(const MatchResult& r, RuleContext& c) {
  Site s = site_of(r);
  if (!s.call) return;
  static constexpr std::string_view kBuiltin[] = {"equal", "allclose", "torch::equal", "torch::allclose",
                                                  "torch::nn::utils::clip_grad_norm_"};
  if (check_declared_api(c, s, kBuiltin)) return;
  if (s.member ? !(s.tensor_method && is_catalog_method(c, s)) : !is_catalog_function(c, s)) return;
  std::string_view name = s.member ? std::string_view(s.method) : last_component(s.function);
  Dev d = subject_device(c, s);
  if (name == "clip_grad_norm_") {
    if (s.call->getNumArgs() >= 1 && d == Dev::Unknown) d = c.device.of(s.call->getArg(0));
    if (d == Dev::Host) return;
    c.out.report(c.rule, s.call, confidence_of(d),
                 "returns the total gradient norm as a C++ double, which reads it on the host and waits for all "
                 "queued GPU work",
                 "Clip on the GPU without reading the norm: `auto norm = torch::stack(grad_norms).norm(); auto coef "
                 "= (max_norm / (norm + 1e-6)).clamp_max(1.0);` then `g.mul_(coef)` for each gradient; read the "
                 "norm once per logging interval.");
    return;
  }
  if (d == Dev::Host) return;
  c.out.report(c.rule, s.call, confidence_of(d),
               "compares GPU tensors and returns a C++ bool, which waits for all queued GPU work",
               "Compute the comparison as a tensor (`torch::isclose(a, b).all()`) and read it once per logging "
               "interval, or only in tests.");
}

}  // namespace synclint::cxx
