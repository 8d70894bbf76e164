// The C++ (LibTorch) front-end's analysis of one translation unit: device inference, hot context and the
// SYNC rules (lib/cxx/rules/, one file per rule, registered in one table). Fed a Clang AST by the driver
// (lib/cxx/driver.h); produces core Findings and knows nothing of compilation databases or output formats.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/finding.h"

namespace clang {
class ASTContext;
}

namespace synclint {
class Catalog;
}

namespace synclint::cxx {

struct AnalysisOptions {
  const Catalog* catalog = nullptr;  // required; the built-in rules plus the configuration's extra-sync-apis
  bool report_cold = false;          // --all: also report syncs in code that runs once
  // Whether findings may be reported in a file (absolute, normalised path; `system`: Clang entered it as a
  // system header): the main file and the headers the header filter admits; never system, LibTorch, CUDA or
  // third-party headers.
  std::function<bool(const std::string& absolute_path, bool system)> is_user_file;
  // The path a finding in that file carries (as the user named the file: relative where they gave one).
  std::function<std::string(const std::string& absolute_path)> display_path;
};

// Never throws for odd ASTs: declarations Clang marked invalid (after compile errors) are skipped.
std::vector<Finding> analyze_translation_unit(clang::ASTContext& context, const AnalysisOptions& options);

}  // namespace synclint::cxx
