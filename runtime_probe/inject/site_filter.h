// Which frames are "not the user's code": Python files inside torch, site-packages, dist-packages or the
// standard library; native modules of CUDA, LibTorch, the C/C++ runtime and the probe itself.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace synclint::probe::inject {

class SkipList {
 public:
  SkipList() = default;
  explicit SkipList(std::vector<std::string> substrings) : subs_(std::move(substrings)) {}
  bool matches(std::string_view path) const;
  const std::vector<std::string>& substrings() const { return subs_; }

 private:
  std::vector<std::string> subs_;
};

struct SiteFilters {
  SkipList python_files;  // Python frames skipped while looking for the user's frame
  SkipList native_modules;  // shared objects skipped in a native backtrace
  SkipList native_files;    // inlined source files skipped inside one native frame (library headers)
};

// The defaults, adjusted by SYNCLINT_PROBE_SKIP (comma-separated path substrings): a value replaces the
// Python list; a value starting with '+' adds to the defaults. Either way the entries are also added to
// the native lists, so a user's own wrapper library can be skipped.
SiteFilters make_site_filters(const char* env_value);

std::vector<std::string> split_list(std::string_view s, char sep = ',');

}  // namespace synclint::probe::inject
