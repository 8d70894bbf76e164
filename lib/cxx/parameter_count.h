// How many tensors a loop over a module's parameters() visits, from the module's constructor as written:
// what lets a read per parameter say "4 reads per step", as the Python front-end does from nn layers.
#pragma once

#include "clang/AST/ASTContext.h"
#include "clang/AST/Stmt.h"

#include <string>

namespace synclint::cxx {

// Parameter tensors of the module a range-for over `m->parameters()` / `m->named_parameters()` iterates:
// the sum over the constructor's register_parameter (one each) and register_module calls (LibTorch
// layers by their options as written, the user's modules recursively). -1 when unknown: buffers, a
// registration in a loop or a branch, a container (Sequential, ModuleList), a layer not listed, several
// constructors.
int parameter_tensors(clang::ASTContext& ctx, const clang::Stmt* parameter_loop);

// The same for the innermost loop over parameters() around `s` in its function; -1 when there is none.
int parameter_tensors_around(clang::ASTContext& ctx, const clang::Stmt* s);

// The hot-context phrase with its "one read per parameter per step" made a count where it is known, as
// the Python front-end words it ("4 reads per step", "1 read per step").
std::string with_reads(std::string phrase, int reads);

}  // namespace synclint::cxx
