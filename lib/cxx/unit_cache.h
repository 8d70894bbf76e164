// Translation units kept parsed between analyses, for the language server (like clangd's): each unit's
// leading #includes are precompiled once into a preamble (Clang's ASTUnit), and a later analysis of the
// same file re-parses only the rest of the main file while those #includes and the headers are unchanged.
// The findings are those Driver::run gives for the unit: same command, same analysis.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <string>

#include "cxx/driver.h"

namespace synclint::cxx {

class UnitCache {
 public:
  // Throws DatabaseError as Driver does.
  explicit UnitCache(const engine::CxxOptions& options);
  ~UnitCache();
  UnitCache(const UnitCache&) = delete;
  UnitCache& operator=(const UnitCache&) = delete;

  struct Analysis {
    RunResult result;              // one unit, its headers
    bool preamble_reused = false;  // the parse reused the preamble of the previous one
  };

  // Analyses `unit` with `text` as its main file's content (the editor's buffer). Not thread-safe.
  Analysis analyze(const Unit& unit, const std::string& text, const RunOptions& options);
  // Frees a unit's parse and preamble.
  void forget(const std::filesystem::path& open_path);

 private:
  struct Parsed;
  Driver driver_;
  std::map<std::filesystem::path, std::unique_ptr<Parsed>> parsed_;
};

}  // namespace synclint::cxx
