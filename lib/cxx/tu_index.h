// One walk over the user's declarations of a TU: the facts device inference and hot context look up
// (call sites of each function, assignments of each variable, module moves, lambda variables' calls).
#pragma once

#include <map>
#include <vector>

#include "clang/AST/ASTContext.h"

namespace synclint::cxx {

struct TuIndex {
  std::map<const clang::FunctionDecl*, std::vector<const clang::CallExpr*>> calls;  // canonical callee
  std::map<const clang::VarDecl*, std::vector<const clang::Expr*>> assigns;         // RHS of `v = ...`
  std::map<const clang::Decl*, std::vector<const clang::Expr*>> moves;              // targets of m->to(x)
  std::map<const clang::VarDecl*, std::vector<const clang::CallExpr*>> var_calls;      // f(...) of a lambda var
  std::vector<const clang::FunctionDecl*> functions;                                // with bodies

  void build(const std::vector<clang::Decl*>& user_decls);
};

// The declaration an expression names directly (a variable, parameter or field), nullptr otherwise;
// `*p`, `p->` of smart pointers and module holders are looked through.
const clang::ValueDecl* named_decl(const clang::Expr* e);

}  // namespace synclint::cxx
