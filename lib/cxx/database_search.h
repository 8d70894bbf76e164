// Which C++ files the front-end takes and where their compilation database is, without Clang: the engine
// asks these before it loads the C++ front-end, so that a walk that meets C++ sources no database lists
// (and headers) never loads it.
#pragma once

#include <filesystem>
#include <map>
#include <optional>

namespace synclint::cxx {

// The source extensions a folder walk takes when a database lists them (.cpp, .cc, .cxx, .cu).
bool is_translation_unit_name(const std::filesystem::path& path);

// The compile_commands.json that applies to an absolute, normal file without -p, as in clang-tidy: the
// nearest one in the file's folder or a parent, or in such a folder's build/. `cache` (by folder) is
// kept between calls.
std::optional<std::filesystem::path> nearest_database(
    const std::filesystem::path& file, std::map<std::filesystem::path, std::optional<std::filesystem::path>>& cache);

}  // namespace synclint::cxx
