// Translation units kept parsed between analyses, for the language server (like clangd's). A unit met for
// the first time, or whose leading #includes (its preamble) or headers changed, is parsed whole, without a
// preamble, so that its findings come as soon as a cold `synclint check` would give them; build_preamble()
// then precompiles those #includes (Clang's ASTUnit), off the path of any result, and a later analysis of
// the same file re-parses only the rest of the main file while the #includes and the headers are unchanged.
// The findings are those Driver::run gives for the unit: same command, same analysis.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "cxx/driver.h"

namespace synclint::cxx {

class UnitCache final : public engine::CxxUnitCache {
 public:
  // Throws DatabaseError as Driver does.
  explicit UnitCache(const engine::CxxOptions& options);
  ~UnitCache() override;
  UnitCache(const UnitCache&) = delete;
  UnitCache& operator=(const UnitCache&) = delete;

  // Analyses `unit` with `text` as its main file's content (the editor's buffer). Not thread-safe.
  Analysis analyze(const Unit& unit, const std::string& text, const RunOptions& options) override;
  // Precompiles the preamble of a unit last parsed without one (from its last text). Returns whether the
  // unit now has one (false when its #includes do not compile, or the unit is not kept).
  bool build_preamble(const std::filesystem::path& open_path) override;
  // Frees a unit's parse and preamble.
  void forget(const std::filesystem::path& open_path) override;

 private:
  struct Parsed;
  Driver driver_;
  std::map<std::filesystem::path, std::unique_ptr<Parsed>> parsed_;
};

}  // namespace synclint::cxx
