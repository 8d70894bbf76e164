#include "cxx/translation_unit.h"

#include <clang/AST/ASTConsumer.h>
#include <clang/AST/ASTContext.h>
#include <clang/Basic/FileManager.h>
#include <clang/Basic/SourceManager.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/FrontendAction.h>
#include <clang/Tooling/Tooling.h>
#include <llvm/Support/VirtualFileSystem.h>

#include <map>
#include <set>

#include "cxx/analysis.h"
#include "cxx/comments.h"
#include "cxx/file_system.h"

namespace synclint::cxx {
namespace fs = std::filesystem;
namespace {

// Where a file of the unit is shown: relative to the working directory when under it, else absolute.
std::string display_of(const fs::path& absolute) {
  std::error_code ec;
  const fs::path rel = absolute.lexically_relative(fs::current_path(ec));
  if (!ec && !rel.empty() && *rel.begin() != "..") return rel.generic_string();
  return absolute.generic_string();
}

class Files {
 public:
  explicit Files(const UnitInput& input) : input_(input) {}

  fs::path absolute(const std::string& path) const {
    fs::path p(path);
    if (p.is_relative()) p = input_.directory / p;
    return p.lexically_normal();
  }

  std::string display(const std::string& path) {
    const fs::path abs = absolute(path);
    if (abs == input_.main_file) return input_.display_path;
    std::string shown = display_of(abs);
    shown_.emplace(shown, abs);
    return shown;
  }

  // `system`: Clang entered this inclusion of the file as a system header.
  bool is_user(const std::string& path, bool system, const clang::SourceManager& sm) {
    const fs::path abs = absolute(path);
    if (abs == input_.main_file) return true;
    if (system) return false;
    auto [it, fresh] = user_.try_emplace(abs, false);
    if (fresh) it->second = sm.getFileManager().getOptionalFileRef(abs.string()) && input_.user_header(abs);
    return it->second;
  }

  // The files findings were reported in (display path -> absolute).
  const std::map<std::string, fs::path>& shown() const { return shown_; }

 private:
  const UnitInput& input_;
  std::map<fs::path, bool> user_;
  std::map<std::string, fs::path> shown_;
};

class Consumer : public clang::ASTConsumer {
 public:
  Consumer(const UnitInput& input, UnitOutput& output, clang::CompilerInstance& ci)
      : input_(input), output_(output), ci_(ci) {}

  void HandleTranslationUnit(clang::ASTContext& context) override {
    analyze_parsed_unit(context, ci_.getLangOpts(), input_, output_);
  }

 private:
  const UnitInput& input_;
  UnitOutput& output_;
  clang::CompilerInstance& ci_;
};

class Action : public clang::ASTFrontendAction {
 public:
  Action(const UnitInput& input, UnitOutput& output) : input_(input), output_(output) {}

  bool BeginInvocation(clang::CompilerInstance& ci) override {
    ci.getDiagnosticOpts().ShowCarets = false;  // no "N errors generated." on stderr: messages are collected
    return true;
  }

  std::unique_ptr<clang::ASTConsumer> CreateASTConsumer(clang::CompilerInstance& ci, llvm::StringRef) override {
    return std::make_unique<Consumer>(input_, output_, ci);
  }

 private:
  const UnitInput& input_;
  UnitOutput& output_;
};

}  // namespace

void analyze_parsed_unit(clang::ASTContext& context, const clang::LangOptions& lang, const UnitInput& input,
                         UnitOutput& output) {
  Files files(input);
  const clang::SourceManager& sm = context.getSourceManager();
  AnalysisOptions options;
  options.catalog = input.catalog;
  options.report_cold = input.report_cold;
  options.is_user_file = [&](const std::string& path, bool system) { return files.is_user(path, system, sm); };
  options.display_path = [&](const std::string& path) { return files.display(path); };
  std::vector<Finding> findings = analyze_translation_unit(context, options);
  output.analysed = true;

  output.main.path = input.display_path;
  output.main.comments = comments_of(sm, sm.getMainFileID(), lang);
  std::map<std::string, FileResult> headers;
  for (Finding& f : findings) {
    if (f.range.path == input.display_path) {
      output.main.findings.push_back(std::move(f));
      continue;
    }
    FileResult& header = headers[f.range.path];
    if (header.path.empty()) {
      header.path = f.range.path;
      header.report_unused_suppressions = false;
      if (auto it = files.shown().find(f.range.path); it != files.shown().end()) {
        if (clang::OptionalFileEntryRef ref = sm.getFileManager().getOptionalFileRef(it->second.string()))
          header.comments = comments_of(sm, sm.translateFile(*ref), lang);
      }
    }
    header.findings.push_back(std::move(f));
  }
  for (auto& [path, header] : headers) output.headers.push_back(std::move(header));
}

UnitOutput parse_and_analyze(const UnitInput& input) {
  UnitOutput output;
  output.main.path = input.display_path;
  Files shown(input);
  CollectingConsumer diagnostics([&](const std::string& p) { return shown.display(p); },
                                 [&](const std::string& p) {
                                   return input.show_warnings && shown.absolute(p) == input.main_file;
                                 });
  llvm::IntrusiveRefCntPtr<clang::FileManager> files(
      new clang::FileManager(clang::FileSystemOptions(), unit_file_system(input.directory)));
  clang::tooling::ToolInvocation invocation(input.argv, std::make_unique<Action>(input, output), files.get());
  invocation.setDiagnosticConsumer(&diagnostics);
  invocation.run();
  output.messages = diagnostics.messages();
  return output;
}

}  // namespace synclint::cxx
