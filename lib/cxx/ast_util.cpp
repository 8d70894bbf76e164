#include "cxx/ast_util.h"

#include "clang/AST/DeclCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"

namespace synclint::cxx {

using namespace clang;

const Expr* strip(const Expr* e) {
  while (e) {
    const Expr* next = e->IgnoreParenImpCasts();
    if (const auto* m = dyn_cast<MaterializeTemporaryExpr>(next)) next = m->getSubExpr();
    else if (const auto* b = dyn_cast<CXXBindTemporaryExpr>(next)) next = b->getSubExpr();
    else if (const auto* f = dyn_cast<CXXFunctionalCastExpr>(next)) next = f->getSubExpr();
    else if (const auto* c = dyn_cast<CXXConstructExpr>(next);
             c && c->getNumArgs() == 1 && c->getConstructor()->isCopyOrMoveConstructor())
      next = c->getArg(0);
    else if (const auto* w = dyn_cast<ExprWithCleanups>(next)) next = w->getSubExpr();
    if (next == e) return e;
    e = next;
  }
  return e;
}

std::string qualified_name(const NamedDecl* d) {
  if (!d) return {};
  std::string out;
  std::vector<std::string> parts;
  for (const DeclContext* dc = d->getDeclContext(); dc; dc = dc->getParent()) {
    if (const auto* ns = dyn_cast<NamespaceDecl>(dc)) {
      if (ns->isInline() || ns->isAnonymousNamespace() || ns->getName().starts_with("_")) continue;
      parts.push_back(ns->getName().str());
    } else if (const auto* r = dyn_cast<RecordDecl>(dc)) {
      parts.push_back(r->getName().str());
    } else if (isa<LinkageSpecDecl>(dc)) {
      continue;
    }
  }
  for (auto it = parts.rbegin(); it != parts.rend(); ++it) out += *it + "::";
  return out + d->getNameAsString();
}

std::string_view last_component(std::string_view api) {
  auto p = api.rfind("::");
  return p == std::string_view::npos ? api : api.substr(p + 2);
}

bool names_match(std::string_view q, std::string_view api) {
  if (q == api) return true;
  if (api.starts_with("torch::")) {
    std::string_view rest = api.substr(7);
    for (std::string_view ns : {"at::", "c10::", "torch::autograd::"})
      if (q.size() == ns.size() + rest.size() && q.starts_with(ns) && q.ends_with(rest)) return true;
  }
  if (api.starts_with("at::") && q.starts_with("c10::") && q.substr(5) == api.substr(4)) return true;
  return false;
}

bool any_name_matches(std::string_view q, const std::vector<std::string>& apis) {
  for (const std::string& a : apis)
    if (names_match(q, a)) return true;
  return false;
}

const CXXMemberCallExpr* as_member_call(const Expr* e) { return dyn_cast_or_null<CXXMemberCallExpr>(e); }

std::string method_name(const CXXMemberCallExpr* c) {
  const CXXMethodDecl* m = c ? c->getMethodDecl() : nullptr;
  return m && m->getIdentifier() ? m->getName().str() : std::string();
}

const FunctionDecl* callee(const Expr* e) {
  const auto* c = dyn_cast_or_null<CallExpr>(e);
  if (!c || isa<CXXMemberCallExpr>(c)) return nullptr;
  return c->getDirectCallee();
}

const Stmt* parent_stmt(ASTContext& ctx, const Stmt* s) {
  auto parents = ctx.getParents(*s);
  while (!parents.empty()) {
    if (const auto* p = parents[0].get<Stmt>()) return p;
    if (const auto* d = parents[0].get<Decl>()) {
      if (isa<FunctionDecl>(d)) return nullptr;
      parents = ctx.getParents(*d);
      continue;
    }
    return nullptr;
  }
  return nullptr;
}

const FunctionDecl* enclosing_function(ASTContext& ctx, const Stmt* s) {
  DynTypedNodeList parents = ctx.getParents(*s);
  while (!parents.empty()) {
    if (const auto* f = parents[0].get<FunctionDecl>()) return f;
    if (const auto* p = parents[0].get<Stmt>()) parents = ctx.getParents(*p);
    else if (const auto* d = parents[0].get<Decl>()) parents = ctx.getParents(*d);
    else return nullptr;
  }
  return nullptr;
}

bool is_true_literal(const Expr* e) {
  if (!e || isa<CXXDefaultArgExpr>(e)) return false;
  if (const auto* b = dyn_cast<CXXBoolLiteralExpr>(e->IgnoreParenImpCasts())) return b->getValue();
  return false;
}

std::string source_text(ASTContext& ctx, const Stmt* s) {
  const SourceManager& sm = ctx.getSourceManager();
  CharSourceRange r = CharSourceRange::getTokenRange(sm.getExpansionRange(s->getBeginLoc()).getBegin(),
                                                     sm.getExpansionRange(s->getEndLoc()).getEnd());
  return Lexer::getSourceText(r, sm, ctx.getLangOpts()).str();
}

}  // namespace synclint::cxx
