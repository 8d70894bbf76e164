#include "clang/ASTMatchers/ASTMatchers.h"
#include "cxx/ast_util.h"
#include "cxx/rules/rules.h"

namespace synclint::cxx {

using namespace clang;
using namespace clang::ast_matchers;

namespace {
constexpr std::string_view kFormattingWhat =
    "formats a GPU tensor as text, which copies it to the host and waits for all queued GPU work";
constexpr std::string_view kFormattingFix =
    "Format a host value read once per logging interval (one `.item<float>()` or one `.cpu()` of stacked "
    "statistics at the interval), not the GPU tensor every step.";
}  // namespace

// `stream << t` (std::cout, std::cerr, std::ostringstream, loggers), at::print(t), c10::str(..., t, ...).
void register_sync005(const Rule& rule, MatchFinder& f, MatchFinder::MatchCallback* cb) {
  match_catalog_functions(rule, f, cb);
  f.addMatcher(cxxOperatorCallExpr(hasOverloadedOperatorName("<<"), argumentCountIs(2)).bind(kCall), cb);
}

void check_sync005(const MatchResult& r, RuleContext& c) {
  Site s = site_of(r);
  if (!s.call) return;
  if (const auto* op = dyn_cast<CXXOperatorCallExpr>(s.call); op && op->getOperator() == OO_LessLess) {
    // Only the formatting operator the catalog names (at::operator<<), whatever the stream.
    if (!is_catalog_function(c, s) || !is_tensor_type(op->getArg(1)->getType())) return;
    Dev d = c.device.of(op->getArg(1));
    if (d != Dev::Host) c.out.report(c.rule, strip(op->getArg(1)), confidence_of(d), kFormattingWhat, kFormattingFix);
    return;
  }
  static constexpr std::string_view kBuiltin[] = {"at::print", "c10::str", "at::operator<<"};
  if (check_declared_api(c, s, kBuiltin)) return;
  if (!is_catalog_function(c, s)) return;
  bool str = last_component(s.function) == "str";
  for (const Expr* a : s.call->arguments()) {
    if (!is_tensor_type(a->getType())) continue;
    Dev d = c.device.of(a);
    if (d != Dev::Host) c.out.report(c.rule, str ? strip(a) : s.call, confidence_of(d), kFormattingWhat, kFormattingFix);
    return;
  }
}

}  // namespace synclint::cxx
