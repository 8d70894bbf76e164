// Walks kept between analyses of one project (ProjectCache, for the language server). A walk of a file
// (walk_file, or walk_file_again, which gives the same) is a function of the file's text, the project's
// index (functions, classes, bindings) and what it read of the round's summaries, heats and calling chains.
// When an analysis must walk a file whose text and index are those of a kept walk, and everything that walk
// read holds the same values now, it takes the kept walk's output instead of walking: an edit of one file
// walks that file and what its changes reach, not its whole group, and the results stay analyze_project's.
// A calling chain read counts as the same when it has the same steps: positions it names that moved (a
// line added above a call in another file) are written again in a copy of the output (rewrite_chains).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "python/project.h"
#include "python/walker.h"

namespace synclint::python {

class WalkMemo {
 public:
  WalkMemo();
  ~WalkMemo();
  WalkMemo(const WalkMemo&) = delete;
  WalkMemo& operator=(const WalkMemo&) = delete;

  // At the start of an analysis of `p` (linked): forgets the kept walks that the new index makes invalid.
  // `versions[i]` names the text of file i (the same text, the same version): only walks of the text a
  // file has now are taken.
  void begin(const Project& p, const std::vector<std::uint64_t>& versions);
  // When a kept walk of `file` read what `p` holds now, puts its summaries, module names and class
  // attributes in p.next (what walking would write) and returns its output; else null. Threads may call it,
  // and record(), for different files at once.
  std::shared_ptr<const FileOutput> replay(Project& p, std::size_t file);
  // Keeps the walk of `file` just made: its output `out`, its entries of p.next, and what it read of `p`.
  void record(const Project& p, std::size_t file, const FileOutput& out);
  // At the end of the analysis: each file walked in it keeps this analysis's walks only.
  void end();
  // Forgets everything (an analysis that failed, or other options).
  void clear();

  // Of the last analysis: walks taken from those kept, and walks made.
  std::size_t replayed() const { return replayed_; }
  std::size_t walked() const { return walked_; }

 private:
  struct Walk;
  std::vector<std::string> paths_;
  std::vector<std::uint64_t> versions_;
  std::vector<std::uint64_t> layout_;                  // per function, class and file of the last analysis
  std::vector<std::uint64_t> bindings_;                // per file: its imports as linked
  std::vector<std::vector<int>> funcs_of_, classes_of_;  // of this analysis, by file
  std::vector<std::vector<std::shared_ptr<const Walk>>> kept_, fresh_;
  std::atomic<std::size_t> replayed_{0}, walked_{0};
};

}  // namespace synclint::python
