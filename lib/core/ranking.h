// The ranking join: measured costs from a probe report onto static findings (`synclint check --costs`).
//
// Matching (docs/probe.md, "Joining costs"): a runtime site (absolute path on the probed machine, line)
// matches a finding when, after mapping, the paths name the same file and the site's line lies within
// the finding's range (a finding on a multi-line statement covers every line of it).
//  - Runtime paths: the longest matching --path-map FROM prefix is replaced by TO (component-wise:
//    "/a/b" maps "/a/b/c.py", not "/a/bc.py"); then normalized (lexically: ".", "..", duplicate '/').
//  - Finding paths: absolute ones are normalized; relative ones are resolved against the current
//    directory AND against the probed run's cwd (mapped the same way), both are tried. Files that
//    exist here are also known by their real path (symbolic links resolved), on both sides.
//  - If no site matched a file that way, a file-level fallback compares the longest common suffix of
//    path components; it is accepted only when it is unique and covers at least the file name and its
//    parent folder (or the whole shorter path), so `train.py` alone never matches `/x/train.py` and
//    `/y/train.py` ambiguously.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/cost_report.h"
#include "core/finding.h"

namespace synclint {

// Sets Finding::cost on every finding that covers runtime sites (summed over the covered sites), orders
// report.findings by predicted saving (costed first, largest first, ties and the uncosted rest in
// finding_less order), fills report.missed_by_static with runtime sites no finding covers (largest saving
// first) and sets report.has_costs. A finding left without cost after the join never synchronized at run
// time (its code did not run, or did not sync there). path_mappings: (FROM, TO) prefix pairs.
void join_costs(Report& report, const CostReport& costs,
                const std::vector<std::pair<std::string, std::string>>& path_mappings);

// The runtime sites of a probe report matched to a set of finding files: the first step of join_costs.
// The language server keeps one while the report and the files with findings stay the same, and costs
// each file's findings when they change. `costs` must outlive it.
class CostIndex {
 public:
  // `files`: the finding files, as the findings name them.
  CostIndex(const std::vector<std::string>& files, const CostReport& costs,
            const std::vector<std::pair<std::string, std::string>>& path_mappings);
  // Sets f.cost to the sum over the sites of f's file on the lines f covers (none: no cost), and marks
  // those sites in `covered` (sized to the report's sites) when given.
  void cost(Finding& f, std::vector<bool>* covered = nullptr) const;
  // The finding files it was made for, each once, in the order given.
  const std::vector<std::string>& files() const { return files_; }
  // Where site i is, as joined: its mapped path, or the finding file its path suffix matched.
  const std::string& site_path(std::size_t i) const { return site_path_[i]; }

 private:
  const CostReport* costs_;
  std::vector<std::string> files_;
  std::map<std::string, std::size_t> file_id_;
  std::vector<std::vector<std::size_t>> sites_of_;  // per file, in the report's order
  std::vector<std::string> site_path_;
};

// The path-mapping step alone (exposed for tests and the language server): the longest matching FROM
// prefix replaced by TO, component-wise; the input unchanged when none matches.
std::string map_runtime_path(const std::string& path,
                             const std::vector<std::pair<std::string, std::string>>& path_mappings);

}  // namespace synclint
