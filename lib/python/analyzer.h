// The Python front-end: tree-sitter-python parse, scopes and device inference, hot context, the project
// index (cross-file calls), and the SYNC rules. Produces core Findings; knows nothing of output formats.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/finding.h"
#include "core/suppressions.h"

namespace synclint {
class Catalog;
}

namespace synclint::python {

struct SourceFile {
  std::string path;  // as displayed and as it goes into findings ('/' separators)
  std::string text;  // UTF-8 (the engine rejects invalid UTF-8 before this point)
  // When not 0, names the text: ProjectCache takes a file of the version it holds as it is (its text may
  // then be left empty: ProjectCache::holds).
  std::uint64_t version = 0;
};

struct Options {
  const Catalog* catalog = nullptr;         // required; includes user APIs from configuration
  std::vector<std::string> hot_functions;   // per-step callback names (defaults + configuration)
  bool report_cold = false;                 // also report syncs in code that runs once (--all)
  unsigned jobs = 1;                        // worker threads for parsing and checking
  // Asked before each round of walks (and by ProjectCache after parsing): true ends the analysis early by
  // throwing AnalysisStopped (the language server's newer edits are waiting).
  std::function<bool()> stop;
  // Files walked again in later rounds are walked whole, not only the functions whose reads changed (the
  // results are the same; tests compare them).
  bool whole_walks = false;
};

// Thrown when Options::stop ends an analysis (not a std::exception: it is no error).
struct AnalysisStopped {};

struct FileResult {
  std::string path;
  std::vector<Finding> findings;   // unsuppressed, unfiltered; severity = rule default or judged level
  std::vector<Comment> comments;   // every comment, for the suppression service
  std::vector<FileError> errors;   // syntax errors (the rest of the file is still analysed)
};

// Analyses the files as one project: a function called from a loop in any of them is hot in all.
// Never throws for bad input; output order follows `files`.
std::vector<FileResult> analyze_project(const std::vector<SourceFile>& files, const Options& options);

}  // namespace synclint::python
