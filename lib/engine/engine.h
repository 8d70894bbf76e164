// files -> front-end -> findings -> suppressions -> configuration -> costs -> ordered Report.
// Shared by `synclint check` and the language server.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/finding.h"

namespace synclint::engine {

struct PathMapping {
  std::string from;  // prefix as recorded in the probe report
  std::string to;    // prefix here
};

struct CheckOptions {
  std::vector<std::string> paths;            // files or folders; empty -> "."
  unsigned jobs = 0;                         // 0 -> all cores
  bool report_cold = false;                  // --all
  std::optional<std::filesystem::path> config_file;  // --config: use this file for every path
  std::optional<std::filesystem::path> costs_file;   // --costs report.json
  std::vector<PathMapping> path_mappings;    // --path-map FROM=TO
  std::size_t max_file_bytes = 64u << 20;    // larger files are skipped with an error
  // Command-line rule selection; wins over configuration. --select replaces the configuration's
  // select and ignore lists; --ignore is added to the ignore list. Ids, prefixes or rule names.
  std::optional<std::vector<std::string>> select;
  std::vector<std::string> ignore;
};

// Progress: files done, files total (called from worker threads, serialised).
using ProgressFn = std::function<void(std::size_t, std::size_t)>;

// Throws ConfigError for configuration problems (exit 2); per-file problems go into Report::errors.
Report run_check(const CheckOptions& options, const ProgressFn& progress = {});

}  // namespace synclint::engine
