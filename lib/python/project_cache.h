// A project kept in memory between analyses, for the language server: each file's parse and index (tree,
// functions, classes, imports, comments) is kept under its path and a hash of its text, and each file's
// results with its group (the files that read each other, run_rounds). An analysis parses again only the
// files that are new or whose text changed, links the whole project, and walks only the groups that hold
// such a file, a file that went away, or a file whose imports now reach another group; the other files
// keep their results. The results are analyze_project's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "python/analyzer.h"
#include "python/walk_memo.h"

namespace synclint::python {

class ProjectCache {
 public:
  ProjectCache();
  ~ProjectCache();
  ProjectCache(const ProjectCache&) = delete;
  ProjectCache& operator=(const ProjectCache&) = delete;

  // analyze_project(files, options), reusing what the last call left for files whose path and text did not
  // change; files absent from `files` are forgotten. `options` must judge as the last call's did (the same
  // catalog contents): a change of hot functions or report_cold analyses everything again.
  // With `same`, the files whose result is the last call's are marked there (1), and their results hold
  // their paths only. With `same` and `wanted`, a file `wanted` refuses whose result would be made from a
  // kept walk's output is marked 2 there, and its result holds its path and errors only: result_of makes
  // the rest when asked (a closed file's findings whose calling chains moved, which no one may ask for).
  std::vector<FileResult> analyze(const std::vector<SourceFile>& files, const Options& options,
                                  std::vector<char>* same = nullptr,
                                  const std::function<bool(const std::string& path)>& wanted = {});

  // Does it hold version `version` (not 0) of `path`'s text? analyze() then needs no text for it.
  bool holds(const std::string& path, std::uint64_t version) const;

  // The result the last analyze() gave for `path` (empty when it had none).
  FileResult result_of(const std::string& path) const;

  // How many files the last analyze() parsed, and how many it walked (the others kept their results).
  std::size_t parsed_last() const { return parsed_last_; }
  std::size_t walked_last() const { return walked_last_; }
  // Of the walks of the last analyze(), how many were taken from earlier ones (WalkMemo), and how many made.
  std::size_t walks_replayed_last() const { return memo_.replayed(); }
  std::size_t walks_made_last() const { return memo_.walked(); }
  // Of those, the walks made from a walk of an earlier analysis, and how many functions kept its output.
  std::size_t walks_resumed_last() const { return memo_.resumed(); }
  std::size_t functions_kept_last() const { return memo_.functions_kept(); }

 private:
  struct Kept;
  std::unordered_map<std::string, std::unique_ptr<Kept>> files_;
  std::vector<std::string> hot_functions_;
  bool report_cold_ = false;
  std::uint64_t generation_ = 0;  // of the groups' keys
  std::uint64_t versions_ = 0;    // of the kept texts
  // The last texts of each edited file before its current one, with their parses and versions.
  static constexpr std::size_t kPastTexts = 2;
  std::unordered_map<std::string, std::vector<std::unique_ptr<Kept>>> past_;
  FileResult result_of(const Kept& k) const;
  std::unique_ptr<Kept> edited(std::unique_ptr<Kept> now, const SourceFile& f, std::size_t hash, bool& parse);
  std::size_t parsed_last_ = 0;
  std::size_t walked_last_ = 0;
  WalkMemo memo_;
};

}  // namespace synclint::python
