// Hot context of the C++ front-end: whether a statement runs every step (a loop body, a lambda called in
// a loop, a function called from a loop in the same TU, forward() of a torch::nn::Module), once per
// logging interval (under `if (step % N == 0)`) or once, and the phrase and related locations that say so
// in a finding, worded like the Python front-end's.
#pragma once

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "clang/AST/ASTContext.h"
#include "core/finding.h"

namespace synclint::cxx {

struct TuIndex;

// Turns Clang locations into the Finding model's ranges ("train.cpp", 1-based code-point columns).
class Locator {
 public:
  Locator(clang::ASTContext& ctx, std::function<std::string(const std::string&)> display_path)
      : ctx_(ctx), display_path_(std::move(display_path)) {}
  SourceRange range(const clang::Stmt* s) const;
  SourceRange range(clang::SourceLocation begin, clang::SourceLocation end_token) const;
  std::string where(const clang::Stmt* s) const;  // "train.cpp:42"
  std::string where(clang::SourceLocation l) const;
  std::string absolute_path(clang::SourceLocation l) const;

 private:
  Position position(clang::SourceLocation l) const;
  clang::ASTContext& ctx_;
  std::function<std::string(const std::string&)> display_path_;
  mutable std::map<unsigned, std::string> paths_;
};

enum class Heat { Cold, Periodic, Hot };

struct HotInfo {
  Heat heat = Heat::Cold;
  const clang::Stmt* loop = nullptr;   // the hot loop in this function
  const clang::Stmt* guard = nullptr;  // the periodic guard in this function
  bool multiplied = false;             // inside a loop over parameters() nested in a hot loop
  std::string called;                  // "called from a.cpp:3 inside loop at a.cpp:2", per-step callback
  std::vector<RelatedLocation> chain;  // the call chain's related locations
};

class HotContext {
 public:
  HotContext(clang::ASTContext& ctx, const TuIndex& index, const Locator& loc) : ctx_(ctx), index_(index), loc_(loc) {}
  HotInfo of(const clang::Stmt* s);
  // "every step of the loop at a.cpp:3", with the loop, guard and chain appended to `related`.
  std::string phrase(const HotInfo& h, std::vector<RelatedLocation>& related) const;

 private:
  HotInfo function_heat(const clang::FunctionDecl* f);
  HotInfo from_callers(const std::vector<const clang::CallExpr*>& calls);

  clang::ASTContext& ctx_;
  const TuIndex& index_;
  const Locator& loc_;
  std::map<const clang::FunctionDecl*, HotInfo> fn_cache_;
  std::set<const void*> active_;
};

// Whether a range-for iterates over a module's parameters (parameters(), named_parameters(), buffers()).
bool is_parameter_loop(const clang::Stmt* loop);

}  // namespace synclint::cxx
