// `synclint lsp`: the language server over stdio (docs/editors.md), or over a transcript file of framed
// messages (replies framed to stdout or --output), which the protocol tests use.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>

#include "commands.h"
#include "engine/workspace.h"
#include "lsp/session.h"

namespace synclint::cli {

void add_lsp_command(CLI::App& app, int& exit_code) {
  struct Args {
    std::string transcript;
    std::string output;
    unsigned jobs = 0;
    bool stdio = true;
    std::string build_path;
    std::vector<std::string> extra_args;
  };
  auto args = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand(
      "lsp", "Language server (LSP 3.17) for editors: live diagnostics, hovers with probe costs, code actions");
  cmd->footer(
      "The editor starts `synclint lsp` and speaks JSON-RPC on its stdin and stdout; logs go to the client's\n"
      "log (window/logMessage). Settings (initializationOptions or the `synclint` section of the client's\n"
      "configuration): probeReport (default synclint-probe.json at the workspace root), rulesBaseUrl, all.\n"
      "C++ sources are analysed when opened and saved, through the compilation database (as for check).\n"
      "Exit status: 0 after shutdown and exit, 1 when the client exits without shutdown or closes stdin.\n"
      "Set-up for Neovim, Helix, Emacs and VS Code: docs/editors.md.");
  cmd->add_flag("--stdio", args->stdio, "Speak over stdin and stdout (the default)");
  cmd->add_option("--transcript", args->transcript,
                  "Read framed messages from FILE instead of stdin, one after the other (for tests)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--output", args->output, "With --transcript: write the framed replies to FILE, not stdout");
  cmd->add_option("-j,--jobs", args->jobs, "Analysis threads (default: all cores)");
  cmd->add_option("-p,--build-path", args->build_path,
                  "C++: the folder holding compile_commands.json (default: found above each file, as for check)");
  cmd->add_option("--extra-arg", args->extra_args, "C++: add this flag to every compile command (repeatable)");
  cmd->callback([args, &exit_code] {
    engine::keep_freed_memory();
    lsp::SessionOptions options;
    options.jobs = args->jobs;
    if (!args->build_path.empty()) options.cxx.build_path = args->build_path;
    options.cxx.extra_args = args->extra_args;
    if (!args->transcript.empty()) {
      std::ifstream in(args->transcript, std::ios::binary);
      std::ofstream file;
      if (!args->output.empty()) {
        file.open(args->output, std::ios::binary);
        if (!file) throw std::runtime_error("cannot write " + args->output);
      }
      lsp::Transport transport(in, args->output.empty() ? std::cout : file);
      options.threaded = false;
      exit_code = lsp::run_session(transport, options);
      return;
    }
    std::ios::sync_with_stdio(false);
    std::cin.tie(nullptr);  // reading stdin (on the input thread) must not flush stdout
    lsp::Transport transport(std::cin, std::cout);
    const int code = lsp::run_session(transport, options);
    std::cout.flush();
    std::fflush(nullptr);
    // The input thread may still be blocked on stdin: leave without waiting for it.
    std::_Exit(code);
  });
}

}  // namespace synclint::cli
