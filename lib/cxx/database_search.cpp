#include "cxx/database_search.h"

#include <algorithm>
#include <array>
#include <string_view>
#include <system_error>
#include <vector>

namespace synclint::cxx {
namespace fs = std::filesystem;

bool is_translation_unit_name(const fs::path& path) {
  static constexpr std::array<std::string_view, 4> kSources = {".cpp", ".cc", ".cxx", ".cu"};
  const std::string ext = path.extension().string();
  return std::find(kSources.begin(), kSources.end(), ext) != kSources.end();
}

std::optional<fs::path> nearest_database(const fs::path& file, std::map<fs::path, std::optional<fs::path>>& cache) {
  std::vector<fs::path> visited;
  std::optional<fs::path> found;
  for (fs::path dir = file.parent_path();; dir = dir.parent_path()) {
    if (auto it = cache.find(dir); it != cache.end()) {
      found = it->second;
      break;
    }
    visited.push_back(dir);
    std::error_code ec;
    if (fs::is_regular_file(dir / "compile_commands.json", ec)) {
      found = dir / "compile_commands.json";
      break;
    }
    if (fs::is_regular_file(dir / "build" / "compile_commands.json", ec)) {
      found = dir / "build" / "compile_commands.json";
      break;
    }
    if (dir == dir.root_path() || dir.empty()) break;
  }
  for (const fs::path& d : visited) cache[d] = found;
  return found;
}

}  // namespace synclint::cxx
