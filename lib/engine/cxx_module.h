// The C++ front-end (Clang and LLVM) is a module of its own, libsynclint_cxx_frontend.so, which the engine
// loads the first time a C++ translation unit is to be analysed: a run on Python files never loads LLVM.
// The module and the program come from one build; these are C++ interfaces between them, not a stable ABI.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "core/file_result.h"
#include "engine/engine.h"

namespace synclint {
class Catalog;
}

namespace synclint::engine {

struct CxxUnit {
  std::string path;                  // display path
  std::filesystem::path open_path;   // absolute, normal
};

struct CxxProjectResult {
  std::vector<FileResult> units;    // one per unit, in order
  std::vector<FileResult> headers;  // the user's headers with findings
};

struct CxxRunSettings {
  const Catalog* catalog = nullptr;
  bool report_cold = false;
  unsigned jobs = 1;
  // Headers under it, or under a unit's own folder, are the user's (absolute, normal); --header-filter
  // replaces both.
  std::filesystem::path project_root;
};

// `synclint check`'s side: a project's translation units analysed together.
class CxxProjectDriver {
 public:
  virtual ~CxxProjectDriver() = default;
  // Whether a C++ file met while walking a folder is checked (a source a database lists; never a header).
  virtual bool takes_walked(const std::filesystem::path& absolute) = 0;
  virtual CxxProjectResult analyze(const std::vector<CxxUnit>& units, const CxxRunSettings& settings) = 0;
};

// The language server's side: units kept parsed between analyses (lib/cxx/unit_cache.h).
class CxxUnitCache {
 public:
  struct Analysis {
    CxxProjectResult result;       // one unit, its headers
    bool preamble_reused = false;  // the parse reused the preamble of an earlier one
    bool preamble_wanted = false;  // parsed without a preamble: build_preamble() speeds up the next
  };
  virtual ~CxxUnitCache() = default;
  virtual Analysis analyze(const CxxUnit& unit, const std::string& text, const CxxRunSettings& settings) = 0;
  virtual bool build_preamble(const std::filesystem::path& open_path) = 0;
  virtual void forget(const std::filesystem::path& open_path) = 0;
};

// What the module exports (as "synclint_cxx_module_v1", returning a pointer to it). Both throw ConfigError
// for a -p folder without a usable compilation database or a bad --header-filter.
struct CxxModule {
  std::unique_ptr<CxxProjectDriver> (*project_driver)(const CxxOptions& options);
  std::unique_ptr<CxxUnitCache> (*unit_cache)(const CxxOptions& options);
};

// Loads the module once (any thread). Throws ConfigError, saying where it looked or why it did not load,
// when it is missing or unusable, or when this build has no C++ front-end.
const CxxModule& cxx_module();

}  // namespace synclint::engine
