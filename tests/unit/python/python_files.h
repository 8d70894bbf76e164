// The Python files of a folder, for the tests that run on a corpus when asked.
#pragma once

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "python/analyzer.h"

namespace synclint::python::test {

// The Python files under `dir`, in path order.
inline std::vector<SourceFile> python_files(const std::filesystem::path& dir) {
  std::vector<SourceFile> files;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
    if (!e.is_regular_file() || e.path().extension() != ".py") continue;
    std::ifstream in(e.path(), std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    files.push_back({e.path().string(), text.str(), 1});
  }
  std::sort(files.begin(), files.end(), [](const SourceFile& a, const SourceFile& b) { return a.path < b.path; });
  return files;
}

}  // namespace synclint::python::test
