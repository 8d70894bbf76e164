#include "cxx/ast_util.h"
#include "cxx/rules/rules.h"

namespace synclint::cxx {

using namespace clang;

namespace {
constexpr std::string_view kShapeWhat =
    "has an output size that depends on GPU values, so LibTorch reads it on the host and waits for all queued "
    "GPU work";
constexpr std::string_view kShapeFix =
    "Use a fixed-shape alternative (`torch::where(mask, x, 0)`, `masked_fill`, multiplying by the mask), or "
    "move the step out of the hot loop.";

bool is_bool_mask(const Expr* e, DeviceInference& dev, int depth = 0) {
  e = strip(e);
  if (!e || depth > 8) return false;
  if (const auto* op = dyn_cast<CXXOperatorCallExpr>(e)) {
    switch (op->getOperator()) {
      case OO_Less: case OO_Greater: case OO_LessEqual: case OO_GreaterEqual: case OO_EqualEqual:
      case OO_ExclaimEqual: case OO_Exclaim: return true;
      case OO_Tilde: case OO_Amp: case OO_Pipe: return op->getNumArgs() >= 1 && is_bool_mask(op->getArg(0), dev, depth + 1);
      default: return false;
    }
  }
  if (const auto* m = as_member_call(e)) {
    static constexpr std::string_view kMasks[] = {"gt", "lt", "ge", "le", "eq", "ne", "logical_and", "logical_or",
                                                  "logical_not", "logical_xor", "isnan", "isinf", "isfinite",
                                                  "bitwise_not", "any", "all"};
    std::string n = method_name(m);
    for (std::string_view k : kMasks)
      if (n == k) return true;
    if (n == "to" && m->getNumArgs() >= 1)
      if (const auto* d = dyn_cast<DeclRefExpr>(strip(m->getArg(0))))
        return d->getDecl()->getName() == "kBool" || d->getDecl()->getName() == "Bool";
    return false;
  }
  if (const auto* d = dyn_cast<DeclRefExpr>(e))
    if (const auto* v = dyn_cast<VarDecl>(d->getDecl()))
      if (const Expr* val = dev.last_value(v, e); val && val != e) return is_bool_mask(val, dev, depth + 1);
  return false;
}

// A boolean mask among the tensors of an index list (`x.index({mask})`, `{Slice(), mask}`).
const Expr* mask_in(const Stmt* s, DeviceInference& dev) {
  if (!s) return nullptr;
  if (const auto* e = dyn_cast<Expr>(s); e && is_tensor_type(e->getType()))
    return is_bool_mask(e, dev) ? e : nullptr;
  for (const Stmt* c : s->children())
    if (const Expr* m = mask_in(c, dev)) return m;
  return nullptr;
}

unsigned written_args(const CallExpr* c) {
  unsigned n = 0;
  for (const Expr* a : c->arguments()) n += !isa<CXXDefaultArgExpr>(a);
  return n;
}
}  // namespace

// nonzero, masked_select, unique, unique_consecutive, one-argument torch::where, index/index_put_ with a
// boolean mask (index_put_ of a scalar does not need the count on the host).
void register_sync008(const Rule& rule, MatchFinder& f, MatchFinder::MatchCallback* cb) {
  match_catalog_apis(rule, f, cb);
}

void check_sync008(const MatchResult& r, RuleContext& c) {
  Site s = site_of(r);
  if (!s.call) return;
  static constexpr std::string_view kBuiltin[] = {"nonzero", "masked_select", "unique", "unique_consecutive",
                                                  "where", "index", "index_put_", "torch::nonzero",
                                                  "torch::masked_select", "torch::unique_consecutive", "torch::where",
                                                  "torch::_unique", "torch::_unique2", "torch::unique_dim"};
  if (check_declared_api(c, s, kBuiltin)) return;
  if (s.member ? !(s.tensor_method && is_catalog_method(c, s)) : !is_catalog_function(c, s)) return;
  std::string_view name = s.member ? std::string_view(s.method) : last_component(s.function);
  if (name == "where" && written_args(s.call) != 1) return;
  if (name == "index" || name == "index_put_") {
    if (s.call->getNumArgs() < 1) return;
    const Expr* mask = mask_in(s.call->getArg(0), c.device);
    if (!mask) return;
    if (name == "index_put_" && (s.call->getNumArgs() < 2 || !is_tensor_type(s.call->getArg(1)->getType()))) return;
    Dev d = join_operands(c.device.of(mask), c.device.of(s.object));
    if (d == Dev::Host) return;
    c.out.report(c.rule, s.call, confidence_of(d),
                 name == "index_put_"
                     ? "assigns a GPU tensor through a boolean mask, which needs the number of selected elements "
                       "on the host and waits for all queued GPU work"
                     : "indexes with a boolean GPU mask: the result size depends on GPU values, so LibTorch reads "
                       "it on the host and waits for all queued GPU work",
                 kShapeFix);
    return;
  }
  Dev d = subject_device(c, s);
  if (d == Dev::Host) return;
  c.out.report(c.rule, s.call, confidence_of(d), kShapeWhat, kShapeFix);
}

}  // namespace synclint::cxx
