// What a front-end returns for one file: its findings before suppressions and configuration, its comments
// for the suppression service, and its per-file problems (syntax or compile errors).
#pragma once

#include <string>
#include <vector>

#include "core/finding.h"
#include "core/suppressions.h"

namespace synclint {

struct FileResult {
  std::string path;                // display path ('/' separators), as in the findings
  std::vector<Finding> findings;   // unsuppressed, unfiltered; severity = rule default or judged level
  std::vector<Comment> comments;   // every comment, for the suppression service
  std::vector<FileError> errors;   // syntax or compile errors (the rest of the file is still analysed)
  // False for a header seen through a translation unit: its suppressions apply, but whether they are
  // unused is said only where the header is checked as a file of its own.
  bool report_unused_suppressions = true;
};

}  // namespace synclint
