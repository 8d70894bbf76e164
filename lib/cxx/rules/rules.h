// The SYNC rules of the C++ front-end, clang-tidy style: each rule registers over-approximating AST
// matchers built from the catalog's [apis.cpp] names (register_matchers) and judges each match in check():
// the callee's exact API name, the subject's device, the arguments. Hot context, periodic guards and the
// message's ending are the Reporter's. Rules are registered in one table (table.cpp).
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "core/catalog.h"
#include "cxx/device.h"
#include "cxx/hot_context.h"

namespace synclint::cxx {

class Reporter {
 public:
  virtual ~Reporter() = default;
  // Reports that `at` synchronizes; `what` says what the code does, the Reporter adds the subject and why
  // the site is hot. Cold sites are dropped unless --all; unknown devices are notes.
  virtual void report(const Rule& rule, const clang::Stmt* at, Confidence confidence, std::string_view what,
                      std::string_view fix) = 0;
};

struct RuleContext {
  const Rule& rule;
  clang::ASTContext& ast;
  DeviceInference& device;
  Reporter& out;
  const Locator& loc;
};

using MatchFinder = clang::ast_matchers::MatchFinder;
using MatchResult = MatchFinder::MatchResult;
using RegisterMatchers = void (*)(const Rule&, MatchFinder&, MatchFinder::MatchCallback*);
using Check = void (*)(const MatchResult&, RuleContext&);

struct RuleEntry {
  std::string_view id;
  RegisterMatchers register_matchers = nullptr;
  Check check = nullptr;
};

std::span<const RuleEntry> rule_table();
const RuleEntry* find_rule_entry(std::string_view id);

// The node every rule's matchers bind.
inline constexpr const char* kCall = "call";

// Matchers of the catalog's C++ API names (unqualified, so over-approximate): x.NAME(...) and NAME(...).
void match_catalog_methods(const Rule& rule, MatchFinder& f, MatchFinder::MatchCallback* cb);
void match_catalog_functions(const Rule& rule, MatchFinder& f, MatchFinder::MatchCallback* cb);
void match_catalog_apis(const Rule& rule, MatchFinder& f, MatchFinder::MatchCallback* cb);

// What check() starts from: the bound call, its method name or the callee's qualified name.
struct Site {
  const clang::CallExpr* call = nullptr;
  const clang::CXXMemberCallExpr* member = nullptr;  // x.m(...)
  const clang::Expr* object = nullptr;               // x
  std::string method;                                // m
  std::string function;                              // qualified callee of f(...)
  bool tensor_method = false;                        // x is a Tensor
};
Site site_of(const MatchResult& r);
// Whether the function's qualified name is one of the rule's catalog `functions`.
bool is_catalog_function(const RuleContext& c, const Site& s);
bool is_catalog_method(const RuleContext& c, const Site& s);
// A user-declared API (extra-sync-apis) that no rule knows by name: a finding unless its subject is
// known host data.
bool check_declared_api(RuleContext& c, const Site& s, std::span<const std::string_view> builtin);
// The device of the value an API acts on: the receiver of a method, else the first tensor argument.
Dev subject_device(RuleContext& c, const Site& s);

void register_sync001(const Rule&, MatchFinder&, MatchFinder::MatchCallback*);
void check_sync001(const MatchResult&, RuleContext&);
void register_sync003(const Rule&, MatchFinder&, MatchFinder::MatchCallback*);
void check_sync003(const MatchResult&, RuleContext&);
void register_sync004(const Rule&, MatchFinder&, MatchFinder::MatchCallback*);
void check_sync004(const MatchResult&, RuleContext&);
void register_sync005(const Rule&, MatchFinder&, MatchFinder::MatchCallback*);
void check_sync005(const MatchResult&, RuleContext&);
void register_sync007(const Rule&, MatchFinder&, MatchFinder::MatchCallback*);
void check_sync007(const MatchResult&, RuleContext&);
void register_sync008(const Rule&, MatchFinder&, MatchFinder::MatchCallback*);
void check_sync008(const MatchResult&, RuleContext&);
void register_sync009(const Rule&, MatchFinder&, MatchFinder::MatchCallback*);
void check_sync009(const MatchResult&, RuleContext&);
void register_sync011(const Rule&, MatchFinder&, MatchFinder::MatchCallback*);
void check_sync011(const MatchResult&, RuleContext&);
void register_sync012(const Rule&, MatchFinder&, MatchFinder::MatchCallback*);
void check_sync012(const MatchResult&, RuleContext&);

}  // namespace synclint::cxx
