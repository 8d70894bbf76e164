#include <exception>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "commands.h"

namespace {

// `synclint check FILE... -- FLAGS`: what follows `--` are C++ compile flags for every file (clang-tidy's
// form), taken off before the command line is parsed. Other subcommands keep their `--` (probe -- CMD).
std::optional<std::vector<std::string>> take_compile_flags(int& argc, char** argv) {
  if (argc < 2 || std::string(argv[1]) != "check") return std::nullopt;
  for (int i = 2; i < argc; ++i) {
    if (std::string(argv[i]) != "--") continue;
    std::vector<std::string> flags(argv + i + 1, argv + argc);
    argc = i;
    return flags;
  }
  return std::nullopt;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace synclint::cli;
  std::optional<std::vector<std::string>> compile_flags = take_compile_flags(argc, argv);
  CLI::App app{"synclint: finds host-device synchronizations in hot GPU code and measures what they cost",
               "synclint"};
  app.set_version_flag("--version", std::string("synclint ") + SYNCLINT_VERSION);
  app.require_subcommand(1);
  int exit_code = kExitClean;
  add_check_command(app, exit_code, std::move(compile_flags));
  add_catalog_commands(app, exit_code);
  add_probe_command(app, exit_code);
  add_lsp_command(app, exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "synclint: error: " << e.what() << "\n"
              << "Run 'synclint --help' or 'synclint COMMAND --help' for usage.\n";
    return kExitError;
  } catch (const std::exception& e) {
    std::cerr << "synclint: error: " << e.what() << "\n";
    return kExitError;
  }
  return exit_code;
}
