#include "core/ranking.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

namespace synclint {
namespace {

namespace fs = std::filesystem;

std::string normalize(const std::string& path) {
  if (path.empty()) return path;
  std::string out = fs::path(path).lexically_normal().generic_string();
  while (out.size() > 1 && out.back() == '/') out.pop_back();
  return out;
}

std::vector<std::string> components(const std::string& path) {
  std::vector<std::string> parts;
  for (const auto& part : fs::path(path).lexically_normal())
    if (!part.empty() && part != "/" && part != "." ) parts.push_back(part.generic_string());
  return parts;
}

// The path with symbolic links resolved, for a file that exists here; "" otherwise.
std::string real_path(const std::string& path) {
  std::error_code ec;
  if (path.empty() || !fs::exists(path, ec)) return {};
  const fs::path real = fs::canonical(path, ec);
  return ec ? std::string() : normalize(real.generic_string());
}

// Lines a finding covers: begin.line .. the last line its exclusive end reaches.
std::pair<std::uint32_t, std::uint32_t> covered_lines(const SourceRange& r) {
  std::uint32_t last = r.end.line;
  if (last > r.begin.line && r.end.column <= 1) --last;  // ends at the start of the next line
  return {r.begin.line, std::max(last, r.begin.line)};
}

void add_cost(SiteCost& total, const SiteCost& c) {
  total.calls += c.calls;
  total.host_blocked_ms += c.host_blocked_ms;
  total.gpu_idle_ms += c.gpu_idle_ms;
  total.predicted_saving_ms += c.predicted_saving_ms;
  total.share_of_run += c.share_of_run;
}

}  // namespace

std::string map_runtime_path(const std::string& path, const std::vector<std::pair<std::string, std::string>>& mappings) {
  const std::string p = normalize(path);
  const std::pair<std::string, std::string>* best = nullptr;
  std::size_t best_len = 0;
  for (const auto& m : mappings) {
    const std::string from = normalize(m.first);
    if (from.empty()) continue;
    const bool matches = p == from || (p.starts_with(from) && (from.back() == '/' || p[from.size()] == '/'));
    if (matches && (best == nullptr || from.size() > best_len)) {
      best = &m;
      best_len = from.size();
    }
  }
  if (best == nullptr) return path;
  std::string rest = p.substr(best_len);
  std::string to = best->second;
  if (!rest.empty() && rest.front() == '/' && !to.empty() && to.back() == '/') rest.erase(0, 1);
  return normalize(to + rest);
}

CostIndex::CostIndex(const std::vector<std::string>& files, const CostReport& costs,
                     const std::vector<std::pair<std::string, std::string>>& path_mappings)
    : costs_(&costs), sites_of_(files.size()), site_path_(costs.sites.size()) {
  files_.reserve(files.size());
  // Each finding file with the absolute paths it may be known by.
  std::map<std::string, std::size_t> by_abs;  // absolute candidate -> id
  std::vector<std::string> run_dirs;
  for (const auto& run : costs.runs.empty() ? std::vector<CostRun>{costs.run} : costs.runs)
    if (!run.cwd.empty()) run_dirs.push_back(normalize(map_runtime_path(run.cwd, path_mappings)));
  std::error_code ec;
  const fs::path here = fs::current_path(ec);
  for (const std::string& file : files) {
    auto [it, fresh] = file_id_.emplace(file, files_.size());
    if (!fresh) continue;
    files_.push_back(file);
    const fs::path named(file);
    if (named.is_absolute()) {
      by_abs.emplace(normalize(file), it->second);
      continue;
    }
    if (!ec) by_abs.emplace(normalize((here / named).generic_string()), it->second);
    for (const auto& dir : run_dirs) by_abs.emplace(normalize((fs::path(dir) / named).generic_string()), it->second);
  }
  // Files that exist here are also known by their real path (symbolic links resolved).
  std::vector<std::pair<std::string, std::size_t>> real;
  for (const auto& [path, id] : by_abs)
    if (std::string r = real_path(path); !r.empty() && r != path) real.emplace_back(r, id);
  for (auto& [path, id] : real) by_abs.emplace(std::move(path), id);

  // Each runtime site -> a finding file (exact path first, then an unambiguous path suffix).
  constexpr std::size_t kNone = static_cast<std::size_t>(-1);
  for (std::size_t i = 0; i < costs.sites.size(); ++i) {
    const std::string mapped = normalize(map_runtime_path(costs.sites[i].site.path, path_mappings));
    site_path_[i] = mapped;
    auto it = by_abs.find(mapped);
    if (it == by_abs.end()) {
      if (std::string r = real_path(mapped); !r.empty()) it = by_abs.find(r);
    }
    if (it != by_abs.end()) {
      sites_of_[it->second].push_back(i);
      continue;
    }
    const auto site_parts = components(mapped);
    std::size_t best = kNone, best_len = 0;
    bool tie = false;
    for (std::size_t id = 0; id < files_.size(); ++id) {
      const auto parts = components(files_[id]);
      std::size_t n = 0;
      while (n < parts.size() && n < site_parts.size() && parts[parts.size() - 1 - n] == site_parts[site_parts.size() - 1 - n] &&
             parts[parts.size() - 1 - n] != "..")
        ++n;
      if (n == 0 || (n < 2 && n < parts.size())) continue;
      if (n > best_len) best = id, best_len = n, tie = false;
      else if (n == best_len) tie = true;
    }
    if (best != kNone && !tie) {
      sites_of_[best].push_back(i);
      site_path_[i] = files_[best];
    }
  }
}

void CostIndex::cost(Finding& f, std::vector<bool>* covered) const {
  f.cost.reset();
  auto id = file_id_.find(f.range.path);
  if (id == file_id_.end()) return;
  const auto [first, last] = covered_lines(f.range);
  for (std::size_t i : sites_of_[id->second]) {
    const CostSite& site = costs_->sites[i];
    if (site.site.line < first || site.site.line > last) continue;
    if (!f.cost) f.cost.emplace();
    add_cost(*f.cost, site_cost(site));
    if (covered) (*covered)[i] = true;
  }
}

void join_costs(Report& report, const CostReport& costs,
                const std::vector<std::pair<std::string, std::string>>& path_mappings) {
  // The distinct finding files, as the user named them.
  std::vector<std::string> files;
  std::set<std::string> seen;
  for (const auto& f : report.findings)
    if (seen.insert(f.range.path).second) files.push_back(f.range.path);
  const CostIndex index(files, costs, path_mappings);

  // Findings cover the sites of their file on their lines.
  std::vector<bool> covered(costs.sites.size(), false);
  for (auto& f : report.findings) index.cost(f, &covered);

  report.missed_by_static.clear();
  for (std::size_t i = 0; i < costs.sites.size(); ++i) {
    if (covered[i]) continue;
    RuntimeSite r;
    r.range.path = index.site_path(i);
    r.range.begin = {costs.sites[i].site.line, 0};
    r.range.end = {costs.sites[i].site.line, 0};
    r.function = costs.sites[i].site.function;
    r.api = costs.sites[i].api;
    r.cost = site_cost(costs.sites[i]);
    report.missed_by_static.push_back(std::move(r));
  }
  std::stable_sort(report.missed_by_static.begin(), report.missed_by_static.end(), [](const RuntimeSite& a, const RuntimeSite& b) {
    if (a.cost.predicted_saving_ms != b.cost.predicted_saving_ms) return a.cost.predicted_saving_ms > b.cost.predicted_saving_ms;
    return std::tie(a.range.path, a.range.begin) < std::tie(b.range.path, b.range.begin);
  });

  std::stable_sort(report.findings.begin(), report.findings.end(), [](const Finding& a, const Finding& b) {
    if (a.cost.has_value() != b.cost.has_value()) return a.cost.has_value();
    if (a.cost && a.cost->predicted_saving_ms != b.cost->predicted_saving_ms)
      return a.cost->predicted_saving_ms > b.cost->predicted_saving_ms;
    return finding_less(a, b);
  });
  report.has_costs = true;
}

}  // namespace synclint
