#include "analysis_test_support.h"

#include <fstream>
#include <sstream>

#include "clang/Frontend/ASTUnit.h"
#include "clang/Tooling/Tooling.h"
#include "core/catalog.h"
#include "cxx/analysis.h"

namespace synclint::cxx::test {

std::vector<Finding> analyze(const std::string& code, bool report_cold, const Catalog* catalog) {
  std::ifstream in(std::string(SYNCLINT_SOURCE_DIR) + "/tests/unit/cxx/mock_torch.h");
  std::stringstream mock;
  mock << in.rdbuf();
  std::unique_ptr<clang::ASTUnit> ast = clang::tooling::buildASTFromCodeWithArgs(
      code, {"-std=c++17", "-nostdinc++", "-I/mock"}, "/work/train.cpp", "synclint-test",
      std::make_shared<clang::PCHContainerOperations>(), clang::tooling::getClangStripDependencyFileAdjuster(),
      {{"/mock/torch.h", mock.str()}});
  if (!ast) return {};
  AnalysisOptions o;
  o.catalog = catalog ? catalog : &Catalog::builtin();
  o.report_cold = report_cold;
  o.is_user_file = [](const std::string& p, bool) { return p == "/work/train.cpp"; };
  o.display_path = [](const std::string& p) { return p.substr(p.rfind('/') + 1); };
  return analyze_translation_unit(ast->getASTContext(), o);
}

std::vector<Finding> of_rule(const std::vector<Finding>& all, const std::string& id) {
  std::vector<Finding> out;
  for (const Finding& f : all)
    if (f.rule_id == id) out.push_back(f);
  return out;
}

}  // namespace synclint::cxx::test
