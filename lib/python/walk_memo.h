// Walks kept between analyses of one project (ProjectCache, for the language server). A walk of a file
// (walk_file, or walk_file_again, which gives the same) is a function of the file's text, the project's
// index (functions, classes, bindings) and what it read of the round's summaries, heats and calling chains.
// When an analysis must walk a file whose text and index are those of a kept walk, and everything that walk
// read holds the same values now, it takes the kept walk's output instead of walking: an edit of one file
// walks that file and what its changes reach, not its whole group, and the results stay analyze_project's.
// A calling chain read counts as the same when it has the same steps: the positions it names that moved (a
// line added above a call in another file) are given with the shared output (ChainsAt), and written into
// copies of the findings that hold them when those are made (chain_rewrites).
// When no kept walk of a file holds, a walk of it still starts from the kept walk that holds for most of its
// functions (earlier): an edit within one line walks the unit of the function that holds the line, the
// module body, and what read something that changed.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
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
  // attributes in p.next (what walking would write) and returns its output (with its calling chains
  // written again where they name positions that moved); else none. Threads may call it, and record(), for
  // different files at once.
  KeptOutput replay(Project& p, std::size_t file);
  // When replay() found none: a kept walk of `file` to walk again from (walk_file_from), of the text it has
  // now or of one that differs from it within one line, with the module imports it has now, that needs
  // fewer than `limit` of its functions walked again (the units that hold the changed line, and those that
  // read something that differs now); the one that needs fewest. Threads may call it for different files.
  std::optional<EarlierWalk> earlier(const Project& p, std::size_t file, std::size_t limit);
  // Counts a walk made from earlier() that kept the output of `kept` functions.
  void resumed(std::size_t kept);
  // Keeps the walk of `file` just made: its output `out`, its entries of p.next, and what it read of `p`.
  void record(const Project& p, std::size_t file, const FileOutput& out);
  // At the end of the analysis: each file walked in it keeps this analysis's walks only.
  void end();
  // Forgets everything (an analysis that failed, or other options).
  void clear();

  // Of the last analysis: walks taken from those kept, and walks made.
  std::size_t replayed() const { return replayed_; }
  std::size_t walked() const { return walked_; }
  // Of the last analysis: walks made from an earlier walk (walk_file_from), and the functions they kept.
  std::size_t resumed() const { return resumed_; }
  std::size_t functions_kept() const { return functions_kept_; }

 private:
  struct Walk;
  // Whether something walk `w` of a file read (its functions' heats and parameter facts, its callees'
  // results, class attributes, other files' module names) differs in `p` now. With `marks`, each of the
  // file's functions (`funcs`, in funcs_of_ order) that read it is marked there; without, it stops at the
  // first difference.
  static bool reads_differ(const Project& p, const Walk& w, const std::vector<int>& funcs, std::vector<char>* marks);
  std::vector<std::string> paths_;
  std::vector<std::uint64_t> versions_;
  std::vector<std::uint64_t> layout_;                  // per function, class and file of the last analysis
  std::vector<std::uint64_t> bindings_;                // per file: its imports as linked
  std::vector<std::vector<int>> funcs_of_, classes_of_;  // of this analysis, by file
  std::vector<std::vector<std::shared_ptr<const Walk>>> kept_, fresh_;
  std::atomic<std::size_t> replayed_{0}, walked_{0}, resumed_{0}, functions_kept_{0};
};

}  // namespace synclint::python
