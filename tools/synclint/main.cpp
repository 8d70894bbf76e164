#include <exception>
#include <iostream>

#include "commands.h"

int main(int argc, char** argv) {
  using namespace synclint::cli;
  CLI::App app{"synclint: finds host-device synchronizations in hot GPU code and measures what they cost",
               "synclint"};
  app.set_version_flag("--version", std::string("synclint ") + SYNCLINT_VERSION);
  app.require_subcommand(1);
  int exit_code = kExitClean;
  add_check_command(app, exit_code);
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
