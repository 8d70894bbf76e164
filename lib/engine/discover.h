// Finding the files to check: named paths, folders walked recursively with the usual skips (.git,
// virtual environments, build and cache folders, .gitignore, configuration exclude globs). Symbolic links
// are followed; loops and dangling links are reported, never followed forever.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/finding.h"

namespace synclint::engine {

// The front-end that handles a file, by extension (.py -> Python; .cpp/.cc/.cxx/.cu/.h/.hpp/.hh -> C++).
std::optional<Language> language_of(const std::filesystem::path& path);
// Whether this build has a front-end for `lang` (C++ where Clang 19 was found at configure time).
bool frontend_available(Language lang);

// Folder names never entered while walking (named folders are always entered).
bool is_skipped_dir_name(std::string_view name);
// A virtual environment: holds pyvenv.cfg or bin/activate.
bool is_virtualenv(const std::filesystem::path& dir);

struct Candidate {
  std::string path;                  // display path: as named, '/' separators, lexically normal
  std::filesystem::path open_path;   // what to open
  Language language = Language::Python;
  bool named = false;                // named on the command line (not found by walking)
};

struct Discovery {
  std::vector<Candidate> files;   // in walk order, without duplicates (same device and inode)
  std::vector<FileError> errors;  // missing paths (fatal), symlink loops and dangling links (not fatal)
};

// Called for every file and folder met while walking (not for named paths): true = leave it out.
// `path` is absolute and lexically normal.
using ExcludeFn = std::function<bool(const std::filesystem::path& path, bool is_dir)>;

Discovery discover(const std::vector<std::string>& paths, const ExcludeFn& excluded = {});

}  // namespace synclint::engine
