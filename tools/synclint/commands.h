// Each subcommand lives in its own cmd_*.cpp and registers itself on the CLI11 app here; main.cpp only
// builds the app and maps errors to exit codes.
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

namespace synclint::cli {

// Exit codes shared by all subcommands.
enum Exit : int { kExitClean = 0, kExitFindings = 1, kExitError = 2 };

// Each add_* registers a subcommand whose callback stores its exit code in `exit_code`.
// cmd_check.cpp; `compile_flags`: what followed `--` after `check` (C++ flags for every file).
void add_check_command(CLI::App& app, int& exit_code, std::optional<std::vector<std::string>> compile_flags);
void add_catalog_commands(CLI::App& app, int& exit_code);     // cmd_catalog.cpp: rules, explain, config
void add_probe_command(CLI::App& app, int& exit_code);        // cmd_probe.cpp: probe [-o] [--trace] -- CMD, probe merge
void add_lsp_command(CLI::App& app, int& exit_code);          // cmd_lsp.cpp: the language server

}  // namespace synclint::cli
