// Interned source sites, shared by every window of one run. Native sites start as placeholders
// (module + offset) and are rewritten in place once symbolized, before the window that uses them is
// analysed.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "analysis/events.h"

namespace synclint::probe::inject {

// Every site has a path (reports and streams require one): a frame without a file name becomes
// kUnknownPath.
class SiteTable {
 public:
  static constexpr const char* kUnknownPath = "<unknown>";

  std::int32_t intern(Site s) {
    named(s);
    std::lock_guard lock(mu_);
    auto key = std::make_tuple(s.path, s.line, s.function, s.language);
    auto [it, inserted] = index_.try_emplace(key, static_cast<std::int32_t>(sites_.size()));
    if (inserted) sites_.push_back(s);
    return it->second;
  }
  // A new entry that is never merged with others (a native placeholder, rewritten later).
  std::int32_t add_unique(Site s) {
    named(s);
    std::lock_guard lock(mu_);
    sites_.push_back(std::move(s));
    return static_cast<std::int32_t>(sites_.size() - 1);
  }
  void update(std::int32_t i, Site s) {
    named(s);
    std::lock_guard lock(mu_);
    if (i >= 0 && static_cast<std::size_t>(i) < sites_.size()) sites_[static_cast<std::size_t>(i)] = std::move(s);
  }
  std::vector<Site> snapshot() const {
    std::lock_guard lock(mu_);
    return sites_;
  }

 private:
  static void named(Site& s) {
    if (s.path.empty()) s.path = kUnknownPath;
  }

  mutable std::mutex mu_;
  std::vector<Site> sites_;
  std::map<std::tuple<std::string, std::uint32_t, std::string, std::string>, std::int32_t> index_;
};

}  // namespace synclint::probe::inject
