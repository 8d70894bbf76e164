// Small Clang AST helpers shared by device inference, hot context and the rules.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/Stmt.h"

namespace synclint::cxx {

// Drops parentheses, implicit casts, temporaries and copy/move constructions.
const clang::Expr* strip(const clang::Expr* e);
// "at::where", "std::chrono::steady_clock::now" (inline and reserved namespaces such as _V2 dropped).
std::string qualified_name(const clang::NamedDecl* d);
// Whether a qualified name matches an API name of the catalog; LibTorch's torch:: re-exports at:: and
// c10::, so "torch::where" also names "at::where".
bool names_match(std::string_view qualified, std::string_view api);
bool any_name_matches(std::string_view qualified, const std::vector<std::string>& apis);
// The last component of a qualified API name ("where" for "torch::where").
std::string_view last_component(std::string_view api);

// The called method's name and its object, for x.m(...) and x->m(...).
const clang::CXXMemberCallExpr* as_member_call(const clang::Expr* e);
std::string method_name(const clang::CXXMemberCallExpr* c);
// The callee of a non-member call, nullptr otherwise.
const clang::FunctionDecl* callee(const clang::Expr* e);

// The enclosing function (or lambda body) of a statement and the parents' walk.
const clang::Stmt* parent_stmt(clang::ASTContext& ctx, const clang::Stmt* s);
const clang::FunctionDecl* enclosing_function(clang::ASTContext& ctx, const clang::Stmt* s);

// Literal `true` (not a default argument).
bool is_true_literal(const clang::Expr* e);
// Source text of an expression (spelling, macros expanded to their use site).
std::string source_text(clang::ASTContext& ctx, const clang::Stmt* s);

}  // namespace synclint::cxx
