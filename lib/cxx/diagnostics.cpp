#include "cxx/diagnostics.h"

#include <clang/Basic/SourceManager.h>
#include <llvm/ADT/SmallString.h>

namespace synclint::cxx {

void CollectingConsumer::HandleDiagnostic(clang::DiagnosticsEngine::Level level, const clang::Diagnostic& info) {
  clang::DiagnosticConsumer::HandleDiagnostic(level, info);
  const bool error = level >= clang::DiagnosticsEngine::Error;
  if (level < clang::DiagnosticsEngine::Warning) return;  // notes and remarks
  had_error_ = had_error_ || error;
  CompilerMessage m;
  m.error = error;
  std::string absolute;
  if (info.getLocation().isValid() && info.hasSourceManager()) {
    const clang::SourceManager& sm = info.getSourceManager();
    const clang::PresumedLoc ploc = sm.getPresumedLoc(sm.getFileLoc(info.getLocation()));
    if (ploc.isValid()) {
      absolute = ploc.getFilename();
      m.position = Position{ploc.getLine(), ploc.getColumn()};
    }
  }
  if (!error && (absolute.empty() || !show_warning_(absolute))) return;
  if (!absolute.empty()) m.path = display_path_(absolute);
  llvm::SmallString<256> text;
  info.FormatDiagnostic(text);
  m.text = std::string(error ? "compiler error: " : "compiler warning: ") + text.str().str();
  messages_.push_back(std::move(m));
}

}  // namespace synclint::cxx
