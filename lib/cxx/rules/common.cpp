#include "clang/ASTMatchers/ASTMatchers.h"
#include "cxx/ast_util.h"
#include "cxx/rules/rules.h"

namespace synclint::cxx {

using namespace clang;
using namespace clang::ast_matchers;

namespace {
std::vector<std::string> last_components(const std::vector<std::string>& names) {
  std::vector<std::string> out;
  for (const std::string& n : names) out.emplace_back(last_component(n));
  return out;
}

std::vector<llvm::StringRef> refs(const std::vector<std::string>& v) { return {v.begin(), v.end()}; }
}  // namespace

void match_catalog_methods(const Rule& rule, MatchFinder& f, MatchFinder::MatchCallback* cb) {
  std::vector<std::string> names = last_components(rule.api_names(Language::Cxx, "methods"));
  if (names.empty()) return;
  f.addMatcher(cxxMemberCallExpr(ast_matchers::callee(cxxMethodDecl(hasAnyName(refs(names))))).bind(kCall), cb);
}

void match_catalog_functions(const Rule& rule, MatchFinder& f, MatchFinder::MatchCallback* cb) {
  std::vector<std::string> names = last_components(rule.api_names(Language::Cxx, "functions"));
  if (names.empty()) return;
  f.addMatcher(callExpr(unless(cxxMemberCallExpr()), ast_matchers::callee(functionDecl(hasAnyName(refs(names))))).bind(kCall), cb);
}

void match_catalog_apis(const Rule& rule, MatchFinder& f, MatchFinder::MatchCallback* cb) {
  match_catalog_methods(rule, f, cb);
  match_catalog_functions(rule, f, cb);
}

Site site_of(const MatchResult& r) {
  Site s;
  s.call = r.Nodes.getNodeAs<CallExpr>(kCall);
  if (!s.call) return s;
  if ((s.member = dyn_cast<CXXMemberCallExpr>(s.call))) {
    s.method = method_name(s.member);
    s.object = s.member->getImplicitObjectArgument();
    s.tensor_method = s.object && is_tensor_type(s.object->getType());
  } else if (const FunctionDecl* f = s.call->getDirectCallee()) {
    s.function = qualified_name(f);
  }
  return s;
}

bool is_catalog_function(const RuleContext& c, const Site& s) {
  return !s.member && any_name_matches(s.function, c.rule.api_names(Language::Cxx, "functions"));
}

bool is_catalog_method(const RuleContext& c, const Site& s) {
  if (!s.member) return false;
  for (const std::string& m : c.rule.api_names(Language::Cxx, "methods")) {
    if (m == s.method) return true;
    // Qualified method names ("c10::cuda::CUDAStream::synchronize") name the class too.
    if (m.find("::") != std::string::npos && names_match(qualified_name(s.member->getMethodDecl()), m)) return true;
  }
  return false;
}

Dev subject_device(RuleContext& c, const Site& s) {
  if (s.member) return c.device.of(s.object);
  for (const Expr* a : s.call->arguments())
    if (is_tensor_type(a->getType()) || is_module_type(a->getType())) return c.device.of(a);
  return Dev::Unknown;
}

bool check_declared_api(RuleContext& c, const Site& s, std::span<const std::string_view> builtin) {
  std::string_view name = s.member ? std::string_view(s.method) : std::string_view(s.function);
  for (std::string_view b : builtin)
    if (names_match(name, b) || name == b) return false;
  if (!(s.member ? is_catalog_method(c, s) : is_catalog_function(c, s))) return false;
  Dev d = subject_device(c, s);
  if (d == Dev::Host) return true;
  c.out.report(c.rule, s.call, confidence_of(d == Dev::Unknown ? Dev::Cuda : d),
                "calls an API declared to synchronize with the GPU",
                "Move the call out of the per-step path or run it once per logging interval.");
  return true;
}

}  // namespace synclint::cxx
