// The engine's side of the C++ front-end: which walked C++ files are checked, and the analysis of a
// project's translation units. The front-end's module (engine/cxx_module.h) is loaded only when a unit may
// be analysed: a C++ file named, a walked source under a compilation database, or -p, `--` or
// --header-filter given. In a build without Clang, C++ files are reported as skipped instead.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "engine/cxx_module.h"

namespace synclint::engine {

class CxxFrontend {
 public:
  // Throws ConfigError for a -p folder without a usable compilation database or a bad --header-filter,
  // or when the module cannot be loaded and these options ask for C++.
  explicit CxxFrontend(const CxxOptions& options);
  ~CxxFrontend();

  // Whether a C++ file met while walking a folder is checked (a source a database lists; never a header).
  // Throws ConfigError when the module is needed and cannot be loaded.
  bool takes_walked(const std::filesystem::path& absolute);

  // Throws ConfigError when the module cannot be loaded.
  CxxProjectResult analyze(const std::vector<CxxUnit>& units, const Catalog& catalog, bool report_cold,
                           unsigned jobs, const std::filesystem::path& project_root);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace synclint::engine
