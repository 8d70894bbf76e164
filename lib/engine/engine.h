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

// How C++ translation units get their compile flags, as clang-tidy does: a compilation database
// (`-p BUILD_DIR`, or compile_commands.json found in the file's parent folders or their build/), or fixed
// flags after `--` for every file.
struct CxxOptions {
  std::optional<std::filesystem::path> build_path;      // -p: the folder of compile_commands.json
  std::optional<std::vector<std::string>> fixed_args;   // after `--` (set, even empty: no database)
  std::vector<std::string> extra_args;                  // --extra-arg: appended to every command
  std::vector<std::string> extra_args_before;           // --extra-arg-before: prepended
  std::optional<std::string> header_filter;             // --header-filter REGEX: headers to report in
  bool quiet = false;                                   // --quiet: no compiler warnings
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
  CxxOptions cxx;                            // C++ sources only
  // Called once the files are found and before any is read (tests change the tree there, as a user
  // editing files during a run would).
  std::function<void()> after_discovery;
};

// Progress: files done, files total (called from worker threads, serialised).
using ProgressFn = std::function<void(std::size_t, std::size_t)>;

// Throws ConfigError for configuration problems (exit 2); per-file problems go into Report::errors.
Report run_check(const CheckOptions& options, const ProgressFn& progress = {});

}  // namespace synclint::engine
