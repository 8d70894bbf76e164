#include "clang/AST/StmtCXX.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include "clang/Basic/SourceManager.h"
#include "cxx/ast_util.h"
#include "cxx/rules/rules.h"

namespace synclint::cxx {

using namespace clang;
using namespace clang::ast_matchers;

namespace {
// The clock read an operand of `end - start` names: a now() call, or a variable initialized by one.
const CallExpr* clock_read(const Expr* e, RuleContext& c) {
  e = strip(e);
  if (const auto* d = dyn_cast_or_null<DeclRefExpr>(e))
    if (const auto* v = dyn_cast<VarDecl>(d->getDecl())) e = strip(c.device.last_value(v, d));
  const auto* call = dyn_cast_or_null<CallExpr>(e);
  if (!call || isa<CXXMemberCallExpr>(call) || !call->getDirectCallee()) return nullptr;
  return any_name_matches(qualified_name(call->getDirectCallee()), c.rule.api_names(Language::Cxx, "functions"))
             ? call
             : nullptr;
}

struct Between {
  const Expr* gpu_work = nullptr;
  Dev device = Dev::Unknown;
  bool synchronized = false;
};

// What runs between two source locations of one function body: GPU work, and anything that waits for it.
void scan(const Stmt* s, SourceLocation from, SourceLocation to, RuleContext& c, Between& out) {
  if (!s || out.synchronized) return;
  const SourceManager& sm = c.ast.getSourceManager();
  if (isa<LambdaExpr>(s)) return;
  if (const auto* call = dyn_cast<CallExpr>(s)) {
    SourceLocation l = sm.getExpansionLoc(call->getBeginLoc());
    if (sm.isBeforeInTranslationUnit(from, l) && sm.isBeforeInTranslationUnit(l, to)) {
      std::string name;
      if (const auto* m = dyn_cast<CXXMemberCallExpr>(call)) name = method_name(m);
      else if (const FunctionDecl* f = call->getDirectCallee()) name = f->getNameAsString();
      static constexpr std::string_view kWaits[] = {"item", "cpu", "synchronize", "device_synchronize",
                                                    "cudaDeviceSynchronize", "cudaStreamSynchronize",
                                                    "cudaEventSynchronize", "elapsed_time", "cudaEventElapsedTime",
                                                    "record", "cudaEventRecord", "is_nonzero", "equal", "allclose"};
      for (std::string_view w : kWaits)
        if (name == w) out.synchronized = true;
      if (is_tensor_type(call->getType()) && !out.gpu_work) {
        Dev d = c.device.of(call);
        if (on_device(d)) {
          out.gpu_work = call;
          out.device = d;
        }
      }
    }
  }
  for (const Stmt* child : s->children()) scan(child, from, to, c, out);
}
}  // namespace

// `end - start` of two std::chrono clock reads with GPU work queued between them and nothing that waits
// for it: the difference measures kernel launches, not GPU execution.
void register_sync012(const Rule&, MatchFinder& f, MatchFinder::MatchCallback* cb) {
  f.addMatcher(cxxOperatorCallExpr(hasOverloadedOperatorName("-"), argumentCountIs(2)).bind(kCall), cb);
}

void check_sync012(const MatchResult& r, RuleContext& c) {
  const auto* op = r.Nodes.getNodeAs<CXXOperatorCallExpr>(kCall);
  if (!op) return;
  const CallExpr* end = clock_read(op->getArg(0), c);
  const CallExpr* start = clock_read(op->getArg(1), c);
  if (!end || !start) return;
  const FunctionDecl* fn = enclosing_function(c.ast, op);
  if (!fn || !fn->getBody()) return;
  const SourceManager& sm = c.ast.getSourceManager();
  SourceLocation from = sm.getExpansionLoc(start->getEndLoc()), to = sm.getExpansionLoc(end->getBeginLoc());
  if (!sm.isBeforeInTranslationUnit(from, to)) return;
  Between between;
  scan(fn->getBody(), from, to, c, between);
  if (between.synchronized || !between.gpu_work) return;
  const std::string what = "measures host time around GPU work queued since " + c.loc.where(start) + " with no synchronization in between: it times kernel launches, not GPU execution";
  c.out.report(c.rule, op, confidence_of(between.device), what,
               "Call `torch::cuda::synchronize()` before reading the clock at both ends, or time with CUDA events "
               "(`cudaEventRecord` and `cudaEventElapsedTime`, read once per logging interval).");
}

}  // namespace synclint::cxx
