// The rounds of walks of a linked project (run_rounds): every file is walked, then, round after round,
// only the files (and in them the functions) that read a summary, a class attribute, a module-level name
// or a heat that changed, until nothing changes or the rounds end.
#pragma once

#include <cstddef>
#include <vector>

#include "python/project.h"
#include "python/walker.h"

namespace synclint::python {

// Walks the files of `p` (parsed, indexed and linked) in rounds on `jobs` threads, in the order `order`
// (largest first, so that the threads end together), until the shared summaries and the hot context of
// every function stop changing: at most 8 rounds, and after the second, for each group of files that read
// from each other, only while that group's files to walk again are few (a small project converges fully, a
// large corpus stops early, and a file's findings do not depend on unrelated files in the same run).
// Returns each file's output of its last walk, findings included.
std::vector<FileOutput> run_rounds(Project& p, const std::vector<std::size_t>& order, unsigned jobs);

}  // namespace synclint::python
