// What the fuzz targets share: a private scratch folder (made once per process, removed at exit) and
// whole-file writes into it, for the readers that take paths.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <system_error>
#include <unistd.h>
#include <vector>

namespace synclint::fuzz {

inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// The scratch folder of this process ("synclint-fuzz-XXXXXX" in $TMPDIR, else in /dev/shm where it can be
// written, else in /tmp): every input is written there, so memory beats a disk.
inline const std::filesystem::path& scratch() {
  static const std::filesystem::path dir = [] {
    const char* tmp = std::getenv("TMPDIR");
    const char* base = tmp && *tmp ? tmp : access("/dev/shm", W_OK | X_OK) == 0 ? "/dev/shm" : "/tmp";
    std::string pattern = std::string(base) + "/synclint-fuzz-XXXXXX";
    if (!mkdtemp(pattern.data())) std::abort();
    std::atexit([] {
      std::error_code ec;
      std::filesystem::remove_all(scratch(), ec);
    });
    return std::filesystem::path(pattern);
  }();
  return dir;
}

// Writes `text` to `path` (parent folders made), replacing it.
inline void write_file(const std::filesystem::path& path, std::string_view text) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  if (!out) std::abort();
}

// Splits `text` at NUL bytes into at most `max_parts` parts (the last one keeps any further NULs).
inline std::vector<std::string_view> split_parts(std::string_view text, std::size_t max_parts) {
  std::vector<std::string_view> parts;
  while (parts.size() + 1 < max_parts) {
    const std::size_t nul = text.find('\0');
    if (nul == std::string_view::npos) break;
    parts.push_back(text.substr(0, nul));
    text.remove_prefix(nul + 1);
  }
  parts.push_back(text);
  return parts;
}

}  // namespace synclint::fuzz
