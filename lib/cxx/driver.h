// The C++ front-end's driver: finds each translation unit's compile command, parses the units in parallel
// (one Clang compiler instance per worker, its AST freed after the unit), reports compiler errors per unit
// and hands each AST to analyze_translation_unit. Findings are kept to the files the user owns.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <regex>
#include <string>
#include <vector>

#include "core/file_result.h"
#include "engine/engine.h"

namespace synclint {
class Catalog;
}

namespace synclint::cxx {

class CommandSource;
struct UnitInput;
struct UnitOutput;

struct Unit {
  std::string path;                  // display path
  std::filesystem::path open_path;   // absolute, normal
};

struct RunOptions {
  const Catalog* catalog = nullptr;
  bool report_cold = false;
  unsigned jobs = 1;
  // Headers under it, or under a unit's own folder, are the user's (absolute, normal); --header-filter
  // replaces both.
  std::filesystem::path project_root;
};

struct RunResult {
  std::vector<FileResult> units;    // one per unit, in order: the main file's findings, comments, errors
  std::vector<FileResult> headers;  // the user's headers with findings (each once, whatever unit saw it)
};

// The source extensions a folder walk takes when a database lists them.
bool is_translation_unit_name(const std::filesystem::path& path);

class Driver {
 public:
  // Throws DatabaseError (compile_db.h) for a -p folder without a usable database or a bad --header-filter.
  explicit Driver(const engine::CxxOptions& options);
  ~Driver();

  // Whether a file met while walking a folder is checked: a source file some database lists.
  bool takes_walked(const std::filesystem::path& absolute);

  RunResult run(const std::vector<Unit>& units, const RunOptions& options);

  // The steps of run() for one unit. prepare: its command (notes and command errors go to `out`); false
  // when it has none. take: the parse's messages and findings into `out`, its headers' into `headers`.
  bool prepare(const Unit& unit, const RunOptions& options, UnitInput& input, FileResult& out);
  static void take(UnitOutput& output, const Unit& unit, FileResult& out, std::map<std::string, FileResult>& headers);

 private:
  engine::CxxOptions options_;
  std::unique_ptr<CommandSource> commands_;
  std::optional<std::regex> header_filter_;
};

}  // namespace synclint::cxx
