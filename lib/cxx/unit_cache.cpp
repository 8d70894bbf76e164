#include "cxx/unit_cache.h"

#include <algorithm>
#include <cstdint>

#include <clang/Basic/DiagnosticOptions.h>
#include <clang/Basic/SourceManager.h>
#include <clang/Frontend/ASTUnit.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Lex/Lexer.h>
#include <clang/Serialization/PCHContainerOperations.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/VirtualFileSystem.h>

#include "cxx/file_system.h"
#include "cxx/translation_unit.h"

namespace synclint::cxx {
namespace fs = std::filesystem;

namespace {

// A file the unit read, as it was on disk when the preamble was built.
struct Stamp {
  std::string path;
  std::uint64_t size = 0;
  llvm::sys::TimePoint<> modified;
};

bool unchanged(const Stamp& s) {
  llvm::sys::fs::file_status now;
  return !llvm::sys::fs::status(s.path, now) && now.getSize() == s.size && now.getLastModificationTime() == s.modified;
}

// The files other than the main one that the unit's last parse read (the virtual stand-ins left out).
std::vector<Stamp> stamps_of(const clang::SourceManager& sources, const fs::path& directory) {
  std::vector<Stamp> out;
  const clang::OptionalFileEntryRef main = sources.getFileEntryRefForID(sources.getMainFileID());
  for (auto it = sources.fileinfo_begin(); it != sources.fileinfo_end(); ++it) {
    if (main && it->first == *main) continue;
    fs::path p(it->first.getName().str());
    if (p.is_relative()) p = directory / p;
    Stamp s;
    s.path = p.lexically_normal().string();
    llvm::sys::fs::file_status status;
    if (llvm::sys::fs::status(s.path, status)) continue;
    s.size = status.getSize();
    s.modified = status.getLastModificationTime();
    out.push_back(std::move(s));
  }
  return out;
}

std::string preamble_of(const std::string& text, const clang::LangOptions& language) {
  return text.substr(0, clang::Lexer::ComputePreamble(text, language).Size);
}

}  // namespace

// One unit's parse: its command (a changed command parses afresh), Clang's unit, the text it parsed, and
// once a preamble is built, the #includes it holds and the files it read.
struct UnitCache::Parsed {
  std::vector<std::string> argv;
  fs::path directory;
  std::string main_file;
  std::string text;
  llvm::IntrusiveRefCntPtr<clang::DiagnosticsEngine> diagnostics;
  std::unique_ptr<clang::ASTUnit> unit;
  bool has_preamble = false;
  std::string preamble;
  std::vector<Stamp> files;

  std::vector<clang::ASTUnit::RemappedFile> remapped() const {  // Clang takes ownership of the buffer
    return {{main_file, llvm::MemoryBuffer::getMemBufferCopy(text, main_file).release()}};
  }

  // Whether a parse of `new_text` under the same command can reuse the preamble.
  bool reusable_for(const std::string& new_text) const {
    return unit && has_preamble && preamble_of(new_text, unit->getLangOpts()) == preamble &&
           std::all_of(files.begin(), files.end(), unchanged);
  }
};

UnitCache::UnitCache(const engine::CxxOptions& options) : driver_(options) {}

UnitCache::~UnitCache() = default;

void UnitCache::forget(const fs::path& open_path) { parsed_.erase(open_path); }

bool UnitCache::build_preamble(const fs::path& open_path) {
  auto it = parsed_.find(open_path);
  if (it == parsed_.end() || !it->second->unit) return false;
  Parsed& parsed = *it->second;
  if (parsed.has_preamble) return true;
  std::vector<Stamp> files = stamps_of(parsed.unit->getSourceManager(), parsed.directory);
  // Parsed with PrecompilePreambleAfterNParses=2: this second parse precompiles the preamble.
  if (parsed.unit->Reparse(std::make_shared<clang::PCHContainerOperations>(), parsed.remapped(),
                           unit_file_system(parsed.directory))) {
    parsed.unit.reset();
    return false;
  }
  parsed.has_preamble = parsed.unit->getEndOfPreambleFileID().isValid();
  if (parsed.has_preamble) {
    parsed.preamble = preamble_of(parsed.text, parsed.unit->getLangOpts());
    parsed.files = std::move(files);
  }
  return parsed.has_preamble;
}

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
  std::unique_ptr<Parsed>& parsed = parsed_[unit.open_path];
  if (parsed && parsed->argv == input.argv && parsed->directory == input.directory && parsed->reusable_for(text)) {
    parsed->text = text;
    const unsigned built = parsed->unit->getPreambleCounterForTests();
    const bool failed = parsed->unit->Reparse(pch, parsed->remapped(), unit_file_system(input.directory));
    out.preamble_reused = !failed && parsed->unit->getEndOfPreambleFileID().isValid() &&
                          parsed->unit->getPreambleCounterForTests() == built;
    if (failed) parsed->unit.reset();
  } else {
    // The whole unit without a preamble: as quick as a cold check; build_preamble() may follow.
    parsed = std::make_unique<Parsed>();
    parsed->argv = input.argv;
    parsed->directory = input.directory;
    parsed->main_file = input.main_file.string();
    parsed->text = text;
    parsed->diagnostics = clang::CompilerInstance::createDiagnostics(new clang::DiagnosticOptions(),
                                                                     new clang::IgnoringDiagConsumer(), true);
    // The preamble also instantiates the templates its own headers use (as CMake's precompiled headers do), so
    // that a save does not instantiate them again; a parse without a preamble is the same with or without it.
    std::vector<const char*> args = {input.argv.front().c_str(), "-fpch-instantiate-templates"};
    for (std::size_t i = 1; i < input.argv.size(); ++i) args.push_back(input.argv[i].c_str());
    std::unique_ptr<clang::ASTUnit> error_unit;
    parsed->unit = clang::ASTUnit::LoadFromCommandLine(
        args.data(), args.data() + args.size(), pch, parsed->diagnostics, SYNCLINT_CLANG_RESOURCE_DIR,
        /*StorePreamblesInMemory=*/false, /*PreambleStoragePath=*/{}, /*OnlyLocalDecls=*/false,
        clang::CaptureDiagsKind::All, parsed->remapped(), /*RemappedFilesKeepOriginalName=*/true,
        /*PrecompilePreambleAfterNParses=*/2, clang::TU_Complete, /*CacheCodeCompletionResults=*/false,
        /*IncludeBriefCommentsInCodeCompletion=*/false, /*AllowPCHWithCompilerErrors=*/false,
        clang::SkipFunctionBodiesScope::None, /*SingleFileParse=*/false, /*UserFilesAreVolatile=*/true,
        /*ForSerialization=*/false, /*RetainExcludedConditionalBlocks=*/false, std::nullopt, &error_unit,
        unit_file_system(input.directory));
    out.preamble_wanted = parsed->unit != nullptr;
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
