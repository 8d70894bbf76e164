// The flow-sensitive walk of one file: statements in order, device inference, loop/guard context, call
// edges and summaries for the project, and dispatch of the rule table at each site.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "python/project.h"
#include "python/rules/rules.h"

namespace synclint::python {

// What one walk of one file produced.
struct FileOutput {
  std::vector<Finding> findings;
  std::vector<CallEdge> edges;
};

// Walks every function of `file` (the module body first). `emit` keeps findings.
void walk_file(Project& project, int file, bool emit, FileOutput& out);

}  // namespace synclint::python
