// The machine-applicable part of a rule's fix (Finding::edits): text to insert before a location. A rule
// that has one hands it to the reporter, when the reporter takes edits, right before report().
#pragma once

#include <string>
#include <vector>

#include "clang/Basic/SourceLocation.h"

namespace synclint::cxx {

struct Insertion {
  clang::SourceLocation before;
  std::string text;
};

class EditSink {
 public:
  virtual ~EditSink() = default;
  // The edits of the finding the next report() makes (dropped when that report is dropped).
  virtual void edits_for_next_report(std::vector<Insertion> edits) = 0;
};

}  // namespace synclint::cxx
