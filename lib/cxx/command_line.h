// The command line one translation unit is parsed with: the database's (or fixed) command, with
// --extra-arg-before/--extra-arg, reduced to a syntax-only parse with the baked-in resource directory, and
// with every flag that would make synclint load code removed.
#pragma once

#include <string>
#include <vector>

namespace synclint::cxx {

struct ParseCommand {
  std::vector<std::string> argv;
  std::vector<std::string> dropped;  // flags that would load plugins, as written ("-fplugin=x.so")
};

// Removes -fplugin=, -fpass-plugin=, -fplugin-arg-*, -Xclang -load/-plugin/-add-plugin/-plugin-arg-*
// (with their -Xclang argument) and the same cc1 flags given directly.
ParseCommand drop_code_loading_flags(const std::vector<std::string>& argv);

// argv[0] from the database, extra_before right after it, extra after the rest; output, dependency-file
// and code-generation flags removed; -fsyntax-only and the resource directory added; for CUDA sources the
// host side only.
ParseCommand parse_command(const std::vector<std::string>& argv, const std::vector<std::string>& extra_before,
                           const std::vector<std::string>& extra, const std::string& file,
                           const std::string& resource_dir);

}  // namespace synclint::cxx
