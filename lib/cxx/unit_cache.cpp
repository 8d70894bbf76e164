#include "cxx/unit_cache.h"

#include <clang/Basic/DiagnosticOptions.h>
#include <clang/Frontend/ASTUnit.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Serialization/PCHContainerOperations.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/VirtualFileSystem.h>

#include "cxx/file_system.h"
#include "cxx/translation_unit.h"

namespace synclint::cxx {
namespace fs = std::filesystem;

// One unit's parse: its command (a changed command parses afresh) and Clang's unit with its preamble.
struct UnitCache::Parsed {
  std::vector<std::string> argv;
  fs::path directory;
  llvm::IntrusiveRefCntPtr<clang::DiagnosticsEngine> diagnostics;
  std::unique_ptr<clang::ASTUnit> unit;
};

UnitCache::UnitCache(const engine::CxxOptions& options) : driver_(options) {}

UnitCache::~UnitCache() = default;

void UnitCache::forget(const fs::path& open_path) { parsed_.erase(open_path); }

UnitCache::Analysis UnitCache::analyze(const Unit& unit, const std::string& text, const RunOptions& options) {
  Analysis out;
  out.result.units.resize(1);
  FileResult& result = out.result.units[0];
  UnitInput input;
  if (!driver_.prepare(unit, options, input, result)) {
    parsed_.erase(unit.open_path);
    return out;
  }
  auto pch = std::make_shared<clang::PCHContainerOperations>();
  const std::string main = input.main_file.string();
  // Clang takes ownership of the buffers.
  std::vector<clang::ASTUnit::RemappedFile> remapped = {
      {main, llvm::MemoryBuffer::getMemBufferCopy(text, main).release()}};

  std::unique_ptr<Parsed>& parsed = parsed_[unit.open_path];
  if (parsed && parsed->unit && parsed->argv == input.argv && parsed->directory == input.directory) {
    const unsigned before = parsed->unit->getPreambleCounterForTests();
    const bool failed = parsed->unit->Reparse(pch, remapped, unit_file_system(input.directory));
    out.preamble_reused = !failed && parsed->unit->getPreambleCounterForTests() == before;
    if (failed) parsed->unit.reset();
  } else {
    parsed = std::make_unique<Parsed>();
    parsed->argv = input.argv;
    parsed->directory = input.directory;
    parsed->diagnostics = clang::CompilerInstance::createDiagnostics(new clang::DiagnosticOptions(),
                                                                     new clang::IgnoringDiagConsumer(), true);
    std::vector<const char*> args;
    for (const std::string& a : input.argv) args.push_back(a.c_str());
    std::unique_ptr<clang::ASTUnit> error_unit;
    parsed->unit = clang::ASTUnit::LoadFromCommandLine(
        args.data(), args.data() + args.size(), pch, parsed->diagnostics, SYNCLINT_CLANG_RESOURCE_DIR,
        /*StorePreamblesInMemory=*/false, /*PreambleStoragePath=*/{}, /*OnlyLocalDecls=*/false,
        clang::CaptureDiagsKind::All, remapped, /*RemappedFilesKeepOriginalName=*/true,
        /*PrecompilePreambleAfterNParses=*/1, clang::TU_Complete, /*CacheCodeCompletionResults=*/false,
        /*IncludeBriefCommentsInCodeCompletion=*/false, /*AllowPCHWithCompilerErrors=*/false,
        clang::SkipFunctionBodiesScope::None, /*SingleFileParse=*/false, /*UserFilesAreVolatile=*/true,
        /*ForSerialization=*/false, /*RetainExcludedConditionalBlocks=*/false, std::nullopt, &error_unit,
        unit_file_system(input.directory));
    if (!parsed->unit) parsed->unit = std::move(error_unit);  // its diagnostics say why
  }

  UnitOutput output;
  output.main.path = input.display_path;
  if (parsed->unit) {
    clang::ASTUnit& ast = *parsed->unit;
    const fs::path directory = input.directory;
    CollectingConsumer messages(
        [&](const std::string& p) {
          fs::path abs(p);
          if (abs.is_relative()) abs = directory / abs;
          abs = abs.lexically_normal();
          return abs == input.main_file ? input.display_path : abs.generic_string();
        },
        [&](const std::string& p) {
          fs::path abs(p);
          if (abs.is_relative()) abs = directory / abs;
          return input.show_warnings && abs.lexically_normal() == input.main_file;
        });
    for (auto it = ast.stored_diag_begin(); it != ast.stored_diag_end(); ++it) messages.add_stored(*it);
    output.messages = messages.messages();
    if (ast.hasSema() || ast.getASTContext().getTranslationUnitDecl())
      analyze_parsed_unit(ast.getASTContext(), ast.getLangOpts(), input, output);
  }
  std::map<std::string, FileResult> headers;
  Driver::take(output, unit, result, headers);
  for (auto& [path, header] : headers) out.result.headers.push_back(std::move(header));
  return out;
}

}  // namespace synclint::cxx
