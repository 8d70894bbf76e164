#include "cxx/rules/rules.h"

namespace synclint::cxx {

// t.item(), t.item<float>() (and the Scalar conversions that follow: one finding, at item()).
void register_sync001(const Rule& rule, MatchFinder& f, MatchFinder::MatchCallback* cb) {
  match_catalog_apis(rule, f, cb);
}

void check_sync001(const MatchResult& r, RuleContext& c) {
  Site s = site_of(r);
  if (!s.call) return;
  static constexpr std::string_view kBuiltin[] = {"item"};
  if (check_declared_api(c, s, kBuiltin)) return;
  if (!s.tensor_method || !is_catalog_method(c, s)) return;
  Dev d = c.device.of(s.object);
  if (d == Dev::Host) return;
  c.out.report(c.rule, s.call, confidence_of(d), "copies a GPU value to the host and waits for all queued GPU work",
               "Keep the value on the GPU (accumulate `total += loss.detach()`) and read it once per logging "
               "interval; for many statistics, `torch::stack` them and copy them to the host in one `.cpu()`.");
}

}  // namespace synclint::cxx
