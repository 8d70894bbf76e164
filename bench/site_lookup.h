// model_check's site helpers: a site's short label and its result in a report.
#pragma once

#include <string>
#include <tuple>

#include "analysis.h"

namespace synclint::probe::bench {

// "file.py:42"
inline std::string label(const Site& s) {
  return s.path.substr(s.path.find_last_of('/') + 1) + ":" + std::to_string(s.line);
}

// The report's result for the site, or nullptr.
inline const SiteResult* find(const ProbeReport& r, const Site& s) {
  for (const auto& x : r.sites)
    if (std::tie(x.site.path, x.site.line, x.site.function) == std::tie(s.path, s.line, s.function)) return &x;
  return nullptr;
}

}  // namespace synclint::probe::bench
