#include "cxx/diagnostics.h"

#include <clang/Basic/SourceManager.h>
#include <llvm/ADT/SmallString.h>

#include "core/compile_error.h"

namespace synclint::cxx {

void CollectingConsumer::HandleDiagnostic(clang::DiagnosticsEngine::Level level, const clang::Diagnostic& info) {
  clang::DiagnosticConsumer::HandleDiagnostic(level, info);
  llvm::SmallString<256> text;
  info.FormatDiagnostic(text);
  add(level, info.hasSourceManager() ? &info.getSourceManager() : nullptr, info.getLocation(), text.str());
}

void CollectingConsumer::add_stored(const clang::StoredDiagnostic& stored) {
  const clang::FullSourceLoc& loc = stored.getLocation();
  add(stored.getLevel(), loc.hasManager() ? &loc.getManager() : nullptr, loc, stored.getMessage());
}

void CollectingConsumer::add(clang::DiagnosticsEngine::Level level, const clang::SourceManager* sm,
                             clang::SourceLocation location, llvm::StringRef text) {
  const bool error = level >= clang::DiagnosticsEngine::Error;
  if (level < clang::DiagnosticsEngine::Warning) return;  // notes and remarks
  had_error_ = had_error_ || error;
  CompilerMessage m;
  m.error = error;
  std::string absolute;
  if (location.isValid() && sm) {
    const clang::PresumedLoc ploc = sm->getPresumedLoc(sm->getFileLoc(location));
    if (ploc.isValid()) {
      absolute = ploc.getFilename();
      m.position = Position{ploc.getLine(), ploc.getColumn()};
    }
  }
  if (!error && (absolute.empty() || !show_warning_(absolute))) return;
  if (!absolute.empty()) m.path = display_path_(absolute);
  m.text = std::string(error ? kCompileErrorPrefix : "compiler warning: ") + text.str();
  messages_.push_back(std::move(m));
}

}  // namespace synclint::cxx
