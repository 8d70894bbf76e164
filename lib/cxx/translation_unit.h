// Parsing and analysing one translation unit: a syntax-only Clang compile of the given command (run in
// this process; the compiler the command names is never executed), the analysis on its AST, the comments
// of the files with findings, and the compiler's messages.
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "core/file_result.h"
#include "cxx/diagnostics.h"

namespace clang {
class ASTContext;
class LangOptions;
}  // namespace clang

namespace synclint {
class Catalog;
}

namespace synclint::cxx {

struct UnitInput {
  std::string display_path;                // the main file as the user named it
  std::filesystem::path main_file;         // absolute, normal
  std::filesystem::path directory;         // the command's working directory
  std::vector<std::string> argv;           // the parse command (command_line.h)
  const Catalog* catalog = nullptr;
  bool report_cold = false;
  bool show_warnings = true;
  // Whether a header (absolute, normal, not a system header) is the user's.
  std::function<bool(const std::filesystem::path&)> user_header;
};

struct UnitOutput {
  bool analysed = false;                    // Clang produced an AST and the analysis ran
  FileResult main;                          // findings, comments
  std::vector<FileResult> headers;          // user headers with findings
  std::vector<CompilerMessage> messages;    // errors, and warnings unless hidden
};

UnitOutput parse_and_analyze(const UnitInput& input);

// The analysis of a unit Clang has parsed (by parse_and_analyze, or kept by the language server): findings,
// the comments of the files with findings. Sets output.analysed.
void analyze_parsed_unit(clang::ASTContext& context, const clang::LangOptions& lang, const UnitInput& input,
                         UnitOutput& output);

}  // namespace synclint::cxx
