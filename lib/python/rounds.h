// The rounds of walks of a linked project (run_rounds): every file is walked, then, round after round,
// only the files (and in them the functions) that read a summary, a class attribute, a module-level name
// or a heat that changed, until nothing changes or the rounds end.
#pragma once

#include <algorithm>
#include <cstddef>
#include <memory>
#include <vector>

#include "python/project.h"
#include "python/walk_memo.h"
#include "python/walker.h"

namespace synclint::python {

// Files joined by what they read from each other (imports, call edges, class attributes, module-level
// names): a union-find that only grows.
class FileGroups {
 public:
  explicit FileGroups(std::size_t n) : parent_(n) {
    for (std::size_t i = 0; i < n; ++i) parent_[i] = i;
  }
  std::size_t find(std::size_t i) {
    while (parent_[i] != i) i = parent_[i] = parent_[parent_[i]];
    return i;
  }
  void join(std::size_t a, std::size_t b) {
    a = find(a), b = find(b);
    if (a != b) parent_[std::max(a, b)] = std::min(a, b);
  }

 private:
  std::vector<std::size_t> parent_;
};

// Walks the files of `p` (parsed, indexed and linked) in rounds on `jobs` threads, in the order `order`
// (largest first, so that the threads end together), until the shared summaries and the hot context of
// every function stop changing: at most 8 rounds, and after the second, for each group of files that read
// from each other, only while that group's files to walk again are few (a small project converges fully, a
// large corpus stops early, and a file's findings do not depend on unrelated files in the same run).
// Returns each file's output of its last walk, findings included, but for those whose last walk took a kept
// output (RoundsRun::replayed). Options::stop may end the rounds early by throwing AnalysisStopped.
struct RoundsRun {
  // Only the files marked here are walked (a union of whole groups: the others' findings would be those of
  // a run on all files, and these files' findings are); all when null.
  const std::vector<char>* active = nullptr;
  // A walk whose inputs are those of a walk kept here takes its output (WalkMemo::replay); the walks
  // made are kept.
  WalkMemo* memo = nullptr;
  // Out: each file's group at the end (the smallest file index in it), and the kept output its last walk
  // took from `memo` (none when it walked).
  std::vector<std::size_t> group_of;
  std::vector<KeptOutput> replayed;
};
std::vector<FileOutput> run_rounds(Project& p, const std::vector<std::size_t>& order, unsigned jobs,
                                   RoundsRun* run = nullptr);

}  // namespace synclint::python
