#include "cxx/tu_index.h"

#include "clang/AST/RecursiveASTVisitor.h"
#include "cxx/ast_util.h"

namespace synclint::cxx {

using namespace clang;

const ValueDecl* named_decl(const Expr* e) {
  e = strip(e);
  if (const auto* op = dyn_cast_or_null<CXXOperatorCallExpr>(e)) {
    OverloadedOperatorKind k = op->getOperator();
    if ((k == OO_Arrow || k == OO_Star) && op->getNumArgs() >= 1) return named_decl(op->getArg(0));
  }
  if (const auto* u = dyn_cast_or_null<UnaryOperator>(e); u && u->getOpcode() == UO_Deref)
    return named_decl(u->getSubExpr());
  if (const auto* d = dyn_cast_or_null<DeclRefExpr>(e)) return d->getDecl();
  if (const auto* m = dyn_cast_or_null<MemberExpr>(e); m && isa<CXXThisExpr>(m->getBase()->IgnoreImpCasts()))
    return m->getMemberDecl();
  return nullptr;
}

namespace {
class Indexer : public RecursiveASTVisitor<Indexer> {
 public:
  explicit Indexer(TuIndex& idx) : idx_(idx) {}
  bool shouldVisitTemplateInstantiations() const { return true; }
  bool shouldVisitLambdaBody() const { return true; }

  bool VisitFunctionDecl(FunctionDecl* f) {
    if (f->hasBody() && f->doesThisDeclarationHaveABody()) idx_.functions.push_back(f);
    return true;
  }
  bool VisitCallExpr(CallExpr* c) {
    if (const FunctionDecl* f = c->getDirectCallee()) idx_.calls[f->getCanonicalDecl()].push_back(c);
    if (const auto* op = dyn_cast<CXXOperatorCallExpr>(c)) {
      if (op->getOperator() == OO_Call && op->getNumArgs() >= 1)
        if (const auto* v = dyn_cast_or_null<VarDecl>(named_decl(op->getArg(0)))) idx_.var_calls[v].push_back(c);
      if (op->getOperator() == OO_Equal && op->getNumArgs() == 2) assign(op->getArg(0), op->getArg(1));
    }
    if (const auto* m = dyn_cast<CXXMemberCallExpr>(c)) {
      std::string name = method_name(m);
      if ((name == "to" || name == "cuda") && m->getNumArgs() >= (name == "to" ? 1u : 0u))
        if (const ValueDecl* d = named_decl(m->getImplicitObjectArgument()))
          idx_.moves[d].push_back(name == "to" ? m->getArg(0) : m);
    }
    return true;
  }
  bool VisitBinaryOperator(BinaryOperator* b) {
    if (b->getOpcode() == BO_Assign) assign(b->getLHS(), b->getRHS());
    return true;
  }

 private:
  void assign(const Expr* lhs, const Expr* rhs) {
    if (const auto* d = dyn_cast<DeclRefExpr>(strip(lhs)))
      if (const auto* v = dyn_cast<VarDecl>(d->getDecl())) idx_.assigns[v].push_back(rhs);
  }
  TuIndex& idx_;
};
}  // namespace

void TuIndex::build(const std::vector<Decl*>& user_decls) {
  Indexer ix(*this);
  for (Decl* d : user_decls) ix.TraverseDecl(d);
}

}  // namespace synclint::cxx
