// The last step for one file's findings, shared by `synclint check` (engine.cpp) and the language server
// (workspace.cpp): its suppression comments, then the configuration (enabled rules, severities).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "core/finding.h"
#include "core/suppressions.h"

namespace synclint {
class Catalog;
class Config;
}  // namespace synclint

namespace synclint::engine {

// The findings kept, in the order given, with the file's unused suppressions (SYNC100) appended when
// `report_unused`. `config_path` is the file's path as the configuration's per-file rules match it.
std::vector<Finding> finish_findings(Language lang, const std::string& path, std::vector<Finding> findings,
                                     const std::vector<Comment>& comments, bool report_unused,
                                     const std::filesystem::path& config_path, const Config& config,
                                     const Catalog& catalog);

}  // namespace synclint::engine
