// Compiler diagnostics of one translation unit, kept as lines to report (`path:line:col: error: ...`);
// they are never findings.
#pragma once

#include <clang/Basic/Diagnostic.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/finding.h"

namespace synclint::cxx {

struct CompilerMessage {
  bool error = false;       // error or fatal error; otherwise a warning
  std::string path;         // display path; empty when the diagnostic has no location (flags)
  std::optional<Position> position;
  std::string text;         // "compiler error: 'missing.h' file not found" (core/compile_error.h)
};

class CollectingConsumer : public clang::DiagnosticConsumer {
 public:
  // `display_path` turns an absolute path into the one shown; `show_warning` says whether a warning in that
  // file (absolute path) is shown.
  CollectingConsumer(std::function<std::string(const std::string&)> display_path,
                     std::function<bool(const std::string&)> show_warning)
      : display_path_(std::move(display_path)), show_warning_(std::move(show_warning)) {}

  void HandleDiagnostic(clang::DiagnosticsEngine::Level level, const clang::Diagnostic& info) override;
  // A diagnostic an ASTUnit kept (the language server's units, whose preamble diagnostics are stored).
  void add_stored(const clang::StoredDiagnostic& stored);

  const std::vector<CompilerMessage>& messages() const { return messages_; }
  bool had_error() const { return had_error_; }

 private:
  void add(clang::DiagnosticsEngine::Level level, const clang::SourceManager* sm, clang::SourceLocation location,
           llvm::StringRef text);

  std::function<std::string(const std::string&)> display_path_;
  std::function<bool(const std::string&)> show_warning_;
  std::vector<CompilerMessage> messages_;
  bool had_error_ = false;
};

}  // namespace synclint::cxx
