// Path globs: '/'-separated components, each matched by fnmatch(3) (`*`, `?` and `[...]` never cross a
// '/'), and "**" for any number of components. One matcher serves the configuration's globs (exclude,
// per-file-ignores) and .gitignore patterns; Glob::Style says where their rules differ.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace synclint {

class Glob {
 public:
  enum class Style {
    // Configuration: "./" and '/' at either end are dropped; a glob with a '/' is anchored at the folder
    // it is relative to, a glob without one matches any single component; a glob that matches a folder
    // matches everything below it ("src/" and "src/**" also match "src" itself); an empty glob matches
    // nothing.
    Config,
    // gitignore(5), once the caller has taken off `!` and a trailing '/' (directory-only): a '/' at the
    // start or inside anchors the glob at the ignore file's folder, otherwise it matches at any depth;
    // the glob must match the whole path (the walk matches each folder on its own); a trailing "**" matches
    // one or more components (what is inside, not the folder); empty components ("a//b") are dropped.
    Gitignore,
  };

  Glob() = default;
  Glob(std::string_view text, Style style);

  // Does the glob match `path` ('/'-separated, relative to the folder the glob is relative to)?
  bool matches(std::string_view path) const { return matches(split_path(path, style_)); }
  // The same for a path already split by split_path (for matching one path against many globs).
  bool matches(const std::vector<std::string_view>& components) const;
  // A path's components as the style reads them: empty ones dropped, and "." ones too in Config style.
  static std::vector<std::string_view> split_path(std::string_view path, Style style);

 private:
  bool match_from(std::size_t pi, const std::vector<std::string_view>& path, std::size_t si,
                  std::vector<std::int8_t>& memo) const;

  std::vector<std::string> components_;  // unanchored globs start with "**"
  Style style_ = Style::Config;
};

}  // namespace synclint
