// The flow-sensitive walk of one file: statements in order, device inference, loop/guard context, call
// edges and summaries for the project, and dispatch of the rule table at each site.
#pragma once

#include <set>
#include <unordered_set>
#include <string>
#include <vector>

#include "python/project.h"
#include "python/rules/rules.h"

namespace synclint::python {

// What one walk of one file produced.
struct FileOutput {
  std::vector<Finding> findings;
  std::vector<CallEdge> edges;
  // What the walk read from other files' summaries (callees are in `edges`): a file is walked again in the
  // next round only when something it read changed.
  std::set<std::pair<int, std::string>> read_classes;  // (class, attribute)
  std::set<std::pair<int, std::string>> read_globals;  // (file, module-level name)
};

// Walks every function of `file` (the module body first). `emit` keeps findings.
void walk_file(Project& project, int file, bool emit, FileOutput& out);

}  // namespace synclint::python
