// Device inference of the C++ front-end: where a tensor, module or device expression lives, flow-sensitive
// inside a function (the last assignment before the use) and across the functions of one TU (parameters
// take the join of their call sites' arguments, functions the join of their returns).
#pragma once

#include <map>
#include <set>
#include <utility>

#include "core/finding.h"

namespace clang {
class ASTContext;
class Decl;
class Expr;
class FunctionDecl;
class QualType;
class Stmt;
class VarDecl;
}  // namespace clang

namespace synclint::cxx {

struct TuIndex;

// Host: known CPU; Cuda: known GPU; Maybe: GPU when one is available; Unknown: nothing is known.
enum class Dev { Unknown, Host, Cuda, Maybe };

// Arithmetic join: any GPU operand makes the result GPU.
Dev join_operands(Dev a, Dev b);
// Control-flow join (two branches): GPU on one side and host on the other is "maybe".
Dev join_branches(Dev a, Dev b);
bool on_device(Dev d);  // Cuda or Maybe
Confidence confidence_of(Dev d);

bool is_tensor_type(clang::QualType t);
bool is_module_type(clang::QualType t);
bool is_device_type(clang::QualType t);  // c10::Device, c10::DeviceType, TensorOptions

class DeviceInference {
 public:
  DeviceInference(clang::ASTContext& context, const TuIndex& index) : context_(context), index_(index) {}
  // The device of a tensor- or module-valued expression.
  Dev of(const clang::Expr* e);
  // The device an argument names: kCUDA, "cuda:0", torch::Device(...), a Device variable, TensorOptions.
  Dev target(const clang::Expr* e);
  // The value a variable holds at `use`: the last assignment before it in the TU, else its initializer.
  const clang::Expr* last_value(const clang::VarDecl* v, const clang::Expr* use);

 private:
  Dev var(const clang::VarDecl* v, const clang::Expr* use, bool as_target);
  Dev param(const clang::VarDecl* p);
  Dev returns(const clang::FunctionDecl* f);
  Dev module_moves(const clang::Decl* d);
  Dev range_element(const clang::VarDecl* v);
  Dev call(const clang::Expr* e);

  clang::ASTContext& context_;
  const TuIndex& index_;
  std::set<const void*> active_;  // recursion guard
  std::map<const void*, Dev> param_cache_, return_cache_, module_cache_;
};

}  // namespace synclint::cxx
