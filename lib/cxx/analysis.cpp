// Interim analysis (replaced by the rule table): calls of the catalog's C++ SYNC007 functions.
#include "cxx/analysis.h"

#include <clang/AST/ASTContext.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/Basic/SourceManager.h>

#include <algorithm>

#include "core/catalog.h"

namespace synclint::cxx {
namespace {

class Visitor : public clang::RecursiveASTVisitor<Visitor> {
 public:
  Visitor(clang::ASTContext& ctx, const AnalysisOptions& options, std::vector<Finding>& out)
      : ctx_(ctx), options_(options), out_(out) {
    rule_ = options.catalog->find("SYNC007");
    if (rule_ != nullptr) names_ = rule_->api_names(Language::Cxx, "functions");
    if (names_.empty()) names_ = {"cudaDeviceSynchronize", "torch::cuda::synchronize"};
  }

  bool VisitCallExpr(clang::CallExpr* call) {
    const clang::FunctionDecl* fn = call->getDirectCallee();
    if (fn == nullptr || rule_ == nullptr) return true;
    const std::string name = fn->getQualifiedNameAsString();
    if (std::find(names_.begin(), names_.end(), name) == names_.end()) return true;
    const clang::SourceManager& sm = ctx_.getSourceManager();
    const clang::SourceLocation loc = sm.getFileLoc(call->getBeginLoc());
    const clang::OptionalFileEntryRef file = sm.getFileEntryRefForID(sm.getFileID(loc));
    if (!file) return true;
    const std::string path(file->getName());
    if (!options_.is_user_file(path)) return true;
    Finding f;
    f.rule_id = rule_->id;
    f.rule_name = rule_->name;
    f.severity = rule_->default_severity;
    f.range.path = options_.display_path(path);
    f.range.begin = {sm.getSpellingLineNumber(loc), sm.getSpellingColumnNumber(loc)};
    f.range.end = {f.range.begin.line, f.range.begin.column + static_cast<std::uint32_t>(name.size())};
    f.message = "`" + name + "()` blocks the host until the GPU has finished its queued work";
    out_.push_back(std::move(f));
    return true;
  }

 private:
  clang::ASTContext& ctx_;
  const AnalysisOptions& options_;
  std::vector<Finding>& out_;
  const Rule* rule_ = nullptr;
  std::vector<std::string> names_;
};

}  // namespace

std::vector<Finding> analyze_translation_unit(clang::ASTContext& context, const AnalysisOptions& options) {
  std::vector<Finding> out;
  Visitor visitor(context, options, out);
  // The unit's own declarations only: those from a precompiled header stay unloaded, and system headers
  // are never walked.
  const clang::SourceManager& sm = context.getSourceManager();
  for (clang::Decl* decl : context.getTranslationUnitDecl()->noload_decls())
    if (!decl->isInvalidDecl() && !sm.isInSystemHeader(decl->getLocation())) visitor.TraverseDecl(decl);
  return out;
}

}  // namespace synclint::cxx
