// .gitignore matching (gitignore(5)): comments, escapes, trailing spaces, negation and directory-only
// patterns here; anchoring and `**` in core/glob.h (Glob::Style::Gitignore), on top of fnmatch(3). Debian packages no C/C++ library for this
// (libgit2 answers only for paths inside an opened repository), hence this small implementation.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/glob.h"

namespace synclint::engine {

// The patterns of one ignore file; paths are matched relative to the folder holding it.
class IgnoreFile {
 public:
  static IgnoreFile parse(std::string_view text);

  // The decision of the last pattern matching `relative` ('/'-separated, relative to the file's
  // folder): true = ignored, false = re-included by a `!` pattern, nullopt = no pattern matched.
  std::optional<bool> match(std::string_view relative, bool is_dir) const;

  bool empty() const { return patterns_.empty(); }

 private:
  struct Pattern {
    Glob glob;  // Glob::Style::Gitignore
    bool negated = false;
    bool dir_only = false;
  };
  std::vector<Pattern> patterns_;
};

// The ignore files in effect while walking: those of the folders above the walk (up to the repository
// root) and those met on the way down. Deeper files take precedence over shallower ones.
class IgnoreStack {
 public:
  // Loads `dir`/.gitignore (and .git/info/exclude when `dir` is a repository root) if present.
  // Returns how many entries were pushed (pop that many when leaving the folder).
  std::size_t push_dir(const std::filesystem::path& dir);
  void pop(std::size_t count);
  // Loads the ignore files of the folders above `dir` (not `dir` itself), up to the closest folder
  // holding .git. Nothing is loaded when `dir` is not inside a repository.
  void push_parents(const std::filesystem::path& dir);

  // `path` must be absolute and lexically normal.
  bool ignored(const std::filesystem::path& path, bool is_dir) const;

 private:
  struct Entry {
    std::string base;  // absolute folder, generic form, ends without '/'
    IgnoreFile file;
  };
  void load(const std::filesystem::path& dir, const std::filesystem::path& file);
  std::vector<Entry> entries_;
};

}  // namespace synclint::engine
