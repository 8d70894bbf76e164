// The engine's side of the C++ front-end: which walked C++ files are checked, and the analysis of a
// project's translation units. In a build without Clang, C++ files are reported as skipped instead.
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

class CxxFrontend {
 public:
  // Throws ConfigError for a -p folder without a usable compilation database or a bad --header-filter.
  explicit CxxFrontend(const CxxOptions& options);
  ~CxxFrontend();

  // Whether a C++ file met while walking a folder is checked (a source a database lists; never a header).
  bool takes_walked(const std::filesystem::path& absolute);

  CxxProjectResult analyze(const std::vector<CxxUnit>& units, const Catalog& catalog, bool report_cold,
                           unsigned jobs, const std::filesystem::path& project_root);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace synclint::engine
