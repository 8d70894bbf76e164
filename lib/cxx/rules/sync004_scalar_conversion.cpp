#include "cxx/rules/rules.h"

namespace synclint::cxx {

// t.is_nonzero(): the truth value of a one-element tensor, read on the host. (This LibTorch has no
// implicit or explicit conversion of a Tensor to bool, so `if (t)` does not compile.)
void register_sync004(const Rule& rule, MatchFinder& f, MatchFinder::MatchCallback* cb) {
  match_catalog_apis(rule, f, cb);
}

void check_sync004(const MatchResult& r, RuleContext& c) {
  Site s = site_of(r);
  if (!s.call) return;
  static constexpr std::string_view kBuiltin[] = {"is_nonzero"};
  if (check_declared_api(c, s, kBuiltin)) return;
  if (!s.tensor_method || !is_catalog_method(c, s)) return;
  Dev d = c.device.of(s.object);
  if (d == Dev::Host) return;
  c.out.report(c.rule, s.call, confidence_of(d),
               "converts a GPU tensor to a C++ bool, which copies it to the host and waits for all queued GPU work",
               "Compare and combine as tensors on the GPU (`torch::where`, `masked_fill`); read one bool once per "
               "logging interval.");
}

}  // namespace synclint::cxx
