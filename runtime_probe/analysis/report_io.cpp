#include "analysis/report_io.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <tuple>

#include "analysis/json_util.h"
#include "core/report_schema.h"

namespace synclint::probe {
namespace {

std::string fmt_ms(double ms) {
  char buf[32];
  if (ms >= 1000) std::snprintf(buf, sizeof buf, "%.2f s", ms / 1000);
  else if (ms >= 1) std::snprintf(buf, sizeof buf, "%.2f ms", ms);
  else std::snprintf(buf, sizeof buf, "%.1f us", ms * 1000);
  return buf;
}

}  // namespace

std::string report_to_json(const ProbeReport& r) { return detail::dump_json(report_schema::to_json(r), 2) + "\n"; }

ProbeReport parse_report(std::string_view text, std::string_view source) {
  return report_schema::parse<ProbeError>(text, source);
}

ProbeReport read_report(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw ProbeError(file.string() + ": cannot open for reading");
  return report_schema::parse_input<ProbeError>(in, file.string());
}

void write_report(const ProbeReport& report, const std::filesystem::path& file) {
  write_text_file(file, report_to_json(report));
}

ProbeReport merge(const std::vector<ProbeReport>& reports) {
  ProbeReport out;
  if (reports.empty()) {
    out.run.status = "no-report: no probe report to merge";
    return out;
  }
  using Key = std::tuple<std::string, std::uint32_t, std::string>;
  std::map<Key, SiteResult> sites;
  std::map<Key, std::map<std::string, std::uint64_t>> apis, rules;
  double total_wall = 0;
  double sampled_time = 0, sampled_wall = 0;  // the merged sampled fraction: weighted by process wall time
  std::size_t ok = 0;
  std::string first_problem;
  std::vector<std::string> not_ok;  // "rank 1", or "pid 4242" for a process without a rank
  for (const auto& r : reports) {
    for (const auto& run : r.runs) {
      out.runs.push_back(run);
      total_wall += run.wall_ms;
    }
    if (r.run.status == "ok") {
      ++ok;
    } else {
      if (first_problem.empty()) first_problem = r.run.status;
      not_ok.push_back(r.run.rank >= 0 ? "rank " + std::to_string(r.run.rank) : "pid " + std::to_string(r.run.pid));
    }
    out.run.wall_ms = std::max(out.run.wall_ms, r.run.wall_ms);
    out.syncs += r.syncs;
    out.host_blocked_ms += r.host_blocked_ms;
    out.gpu_idle_ms += r.gpu_idle_ms;
    out.dropped_activity_records += r.dropped_activity_records;
    out.windows += r.windows;
    out.modelled_gpu_activities += r.modelled_gpu_activities;
    out.modelled_without_duration += r.modelled_without_duration;
    sampled_time += r.sampled_fraction * std::max(r.run.wall_ms, 0.0);
    sampled_wall += std::max(r.run.wall_ms, 0.0);
    if (std::abs(r.replay_error) > std::abs(out.replay_error)) out.replay_error = r.replay_error;
    for (const auto& s : r.sites) {
      const Key key{s.site.path, s.site.line, s.site.function};
      auto [it, fresh] = sites.emplace(key, s);
      auto& ranks = it->second.ranks;  // a fresh entry starts with the site's own
      if (!fresh) ranks.insert(ranks.end(), s.ranks.begin(), s.ranks.end());
      if (s.ranks.empty() && r.run.rank >= 0) ranks.push_back(r.run.rank);
      std::sort(ranks.begin(), ranks.end());
      ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
      if (!fresh) {
        it->second.calls += s.calls;
        it->second.traced_calls += s.traced_calls;
        it->second.host_blocked_ms += s.host_blocked_ms;
        it->second.traced_host_blocked_ms += s.traced_host_blocked_ms;
        it->second.replayed_blocked_ms += s.replayed_blocked_ms;
        it->second.gpu_idle_ms += s.gpu_idle_ms;
        it->second.predicted_saving_ms += s.predicted_saving_ms;
        it->second.saving_if_removed_ms += s.saving_if_removed_ms;
        it->second.wait_saving_ms += s.wait_saving_ms;
        it->second.python_call_ms += s.python_call_ms;
      }
      apis[key][s.api] += s.calls;
      rules[key][s.rule_guess] += s.calls;
    }
  }
  // The first process by rank (rank 0, or the parent when no rank is set) names the run.
  const auto first = std::min_element(reports.begin(), reports.end(), [](const ProbeReport& a, const ProbeReport& b) {
    return std::tuple(a.run.rank < 0 ? 0 : 1, a.run.rank, a.run.pid) < std::tuple(b.run.rank < 0 ? 0 : 1, b.run.rank, b.run.pid);
  });
  out.run.command = first->run.command;
  out.run.cwd = first->run.cwd;
  out.run.hostname = first->run.hostname;
  out.run.pid = first->run.pid;
  out.run.rank = first->run.rank;
  out.run.gpu_name = first->run.gpu_name;
  // The callback time the replay took out: the first process's (every process of one `synclint probe` run
  // has the same setting; each keeps its own in `runs`).
  out.run.callback_overhead_ns = first->run.callback_overhead_ns;
  // The processes' common GPU records setting; "mixed" when they differ (a report without it counts as
  // unknown, not as a difference).
  for (const auto& run : out.runs)
    if (!run.gpu_records.empty() && run.gpu_records != out.run.gpu_records)
      out.run.gpu_records = out.run.gpu_records.empty() ? run.gpu_records : "mixed";
  if (ok == reports.size()) out.run.status = "ok";
  else if (ok == 0) out.run.status = first_problem;
  else {
    std::string who;
    for (const std::string& w : not_ok) who += (who.empty() ? "" : ", ") + w;
    out.run.status = "partial: " + std::to_string(reports.size() - ok) + " of " + std::to_string(reports.size()) +
                     " processes (" + who + "): " + first_problem;
  }
  auto most = [](const std::map<std::string, std::uint64_t>& counts) {
    std::string best;
    std::uint64_t n = 0;
    for (const auto& [k, c] : counts)
      if (c > n || best.empty()) best = k, n = c;
    return best;
  };
  for (auto& [key, s] : sites) {
    s.api = most(apis[key]);
    s.rule_guess = most(rules[key]);
    s.share_of_run = total_wall > 0 ? s.predicted_saving_ms / total_wall : 0.0;
    out.sites.push_back(std::move(s));
  }
  sort_sites(out.sites);
  out.sampled_fraction = sampled_wall > 0 ? sampled_time / sampled_wall : 1.0;
  return out;
}

std::string format_table(const ProbeReport& r, std::size_t max_rows) {
  std::string prefix = r.run.cwd;
  if (!prefix.empty() && prefix.back() != '/') prefix += '/';
  struct Row {
    std::string cells[8];
  };
  // With several ranks, each site says which of them made its calls.
  std::vector<std::int32_t> all_ranks;
  for (const auto& run : r.runs)
    if (run.rank >= 0 && std::find(all_ranks.begin(), all_ranks.end(), run.rank) == all_ranks.end()) all_ranks.push_back(run.rank);
  const bool show_ranks = all_ranks.size() > 1;
  std::vector<Row> rows;
  rows.push_back({{"#", "site", "rule guess", "calls", "host blocked", "GPU idle after", "predicted saving", "share"}});
  std::size_t n = 0;
  for (const auto& s : r.sites) {
    if (max_rows && n >= max_rows) break;
    std::string path = s.site.path;
    if (!prefix.empty() && path.starts_with(prefix)) path = path.substr(prefix.size());
    std::string site = path + ":" + std::to_string(s.site.line);
    if (!s.site.function.empty()) site += " (" + s.site.function + ")";
    site += " " + s.api;
    if (show_ranks && !s.ranks.empty()) {
      site += s.ranks.size() == 1 ? " [rank " : " [ranks ";
      for (std::size_t i = 0; i < s.ranks.size(); ++i) site += (i ? ", " : "") + std::to_string(s.ranks[i]);
      site += "]";
    }
    char share[16];
    std::snprintf(share, sizeof share, "%.1f%%", s.share_of_run * 100);
    rows.push_back({{std::to_string(++n), site, s.rule_guess.empty() ? "?" : s.rule_guess, std::to_string(s.calls),
                     fmt_ms(s.host_blocked_ms), fmt_ms(s.gpu_idle_ms), fmt_ms(s.predicted_saving_ms), share}});
  }
  std::size_t width[8] = {};
  for (const auto& row : rows)
    for (int c = 0; c < 8; ++c) width[c] = std::max(width[c], row.cells[c].size());
  std::string out;
  char head[256];
  std::snprintf(head, sizeof head, "%zu sync site%s, %llu syncs, run %s (%zu process%s); host blocked %s, GPU idle %s\n",
                r.sites.size(), r.sites.size() == 1 ? "" : "s", static_cast<unsigned long long>(r.syncs),
                fmt_ms(r.run.wall_ms).c_str(), r.runs.size(), r.runs.size() == 1 ? "" : "es",
                fmt_ms(r.host_blocked_ms).c_str(), fmt_ms(r.gpu_idle_ms).c_str());
  out += head;
  if (r.dropped_activity_records)
    out += "warning: " + std::to_string(r.dropped_activity_records) +
           " GPU activity records were dropped; GPU idle times and savings are incomplete\n";
  // Without GPU records nothing is measured on the GPU: the GPU idle column is the model's, fitted to the
  // syncs (docs/validation.md), and so are the savings.
  const bool records_free = r.run.gpu_records == "model";
  if (records_free)
    out += "note: GPU idle times and savings rest on GPU work modelled from the syncs alone (no GPU activity "
           "records, --gpu-records model); the default, first, measures the work in the first stretch\n";
  // Work first queued after the first stretch has no duration of its own in the GPU model: its estimates
  // rest on a guess and come out low.
  if (!records_free && r.modelled_without_duration * 10 > r.modelled_gpu_activities && r.modelled_without_duration > 0)
    out += "warning: " + std::to_string(r.modelled_without_duration) + " of " + std::to_string(r.modelled_gpu_activities) +
           " modelled GPU activities had no duration learned in the first stretch; GPU idle times and savings "
           "are less certain\n";
  if (r.sites.empty()) return out;
  for (const auto& row : rows) {
    for (int c = 0; c < 8; ++c) {
      const bool left = c == 1 || c == 2;
      const std::string& cell = row.cells[c];
      const std::string pad(width[c] - cell.size(), ' ');
      out += left ? cell + pad : pad + cell;
      out += c == 7 ? "\n" : "  ";
    }
  }
  if (max_rows && r.sites.size() > max_rows)
    out += "(" + std::to_string(r.sites.size() - max_rows) + " more sites in the report)\n";
  return out;
}

}  // namespace synclint::probe
