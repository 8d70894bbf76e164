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
#include "cxx/database_search.h"
#include "engine/cxx_module.h"
#include "engine/engine.h"

namespace synclint {
class Catalog;
}

namespace synclint::cxx {

class CommandSource;
struct UnitInput;
struct UnitOutput;

// The engine's types (engine/cxx_module.h): a unit, the settings of a run and its result.
using Unit = engine::CxxUnit;
using RunOptions = engine::CxxRunSettings;  // headers under project_root or a unit's folder are the user's
using RunResult = engine::CxxProjectResult;

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
