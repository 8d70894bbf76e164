#include "core/glob.h"

#include <fnmatch.h>

#include <cstdint>

namespace synclint {

std::vector<std::string_view> Glob::split_path(std::string_view path, Style style) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  while (start <= path.size()) {
    const std::size_t slash = std::min(path.find('/', start), path.size());
    const std::string_view part = path.substr(start, slash - start);
    if (!part.empty() && (style == Style::Gitignore || part != ".")) parts.push_back(part);
    start = slash + 1;
  }
  return parts;
}

Glob::Glob(std::string_view text, Style style) : style_(style) {
  bool anchored = false;
  if (style == Style::Config) {
    if (text.starts_with("./")) text.remove_prefix(2);
    anchored = text.find('/') != std::string_view::npos;
    while (text.starts_with("/")) text.remove_prefix(1);
    while (text.ends_with("/")) text.remove_suffix(1);
  } else {
    if (text.starts_with("/")) {
      anchored = true;
      text.remove_prefix(1);
    }
    anchored = anchored || text.find('/') != std::string_view::npos;
  }
  const std::vector<std::string_view> parts = split_path(text, style);
  if (parts.empty() && style == Style::Config) return;  // matches nothing
  if (!anchored) components_.emplace_back("**");
  for (std::string_view part : parts) components_.emplace_back(part);
  // An unanchored configuration glob matches one component, at any depth: a lone "**" there is any name.
  if (!anchored && style == Style::Config && components_.back() == "**") components_.back() = "*";
}

bool Glob::matches(const std::vector<std::string_view>& path) const {
  if (components_.empty() && style_ == Style::Config) return false;
  // Each (glob component, path component) pair is tried once: without the memo, globs with many "**"
  // ("**/**/**/.../x" in a .gitignore) take time exponential in their count.
  std::vector<std::int8_t> memo((components_.size() + 1) * (path.size() + 1), -1);
  return match_from(0, path, 0, memo);
}

// Matches components [pi..] against path components [si..].
bool Glob::match_from(std::size_t pi, const std::vector<std::string_view>& path, std::size_t si,
                      std::vector<std::int8_t>& memo) const {
  if (pi == components_.size()) return style_ == Style::Config || si == path.size();
  std::int8_t& known = memo[pi * (path.size() + 1) + si];
  if (known >= 0) return known != 0;
  bool result = false;
  if (components_[pi] == "**") {
    // A trailing "**" of a gitignore glob matches one or more components; elsewhere zero or more.
    if (style_ == Style::Gitignore && pi + 1 == components_.size()) {
      result = si < path.size();
    } else {
      for (std::size_t k = si; k <= path.size() && !result; ++k) result = match_from(pi + 1, path, k, memo);
    }
  } else if (si < path.size()) {
    const std::string name(path[si]);  // holds no '/': FNM_PATHNAME changes nothing but says so
    result = fnmatch(components_[pi].c_str(), name.c_str(), FNM_PATHNAME) == 0 && match_from(pi + 1, path, si + 1, memo);
  }
  known = result ? 1 : 0;
  return result;
}

}  // namespace synclint
