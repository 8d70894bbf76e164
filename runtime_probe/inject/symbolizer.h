// Native return addresses -> file:line + function, from the DWARF of each module, by spawning the
// binutils addr2line (or llvm-symbolizer) once per module and batch of addresses. Without either tool,
// dladdr's symbol name is used (no line).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace synclint::probe::inject {

struct SourceFrame {
  std::string function;  // demangled; "" when unknown
  std::string file;      // "" when unknown
  std::uint32_t line = 0;
};

// One entry per address, each the inline chain innermost first. Parses `addr2line -a -f -C -i` output.
std::vector<std::vector<SourceFrame>> parse_addr2line(std::string_view text, std::size_t addresses);
// Parses `llvm-symbolizer` output (function, file:line:column lines, a blank line after each address).
std::vector<std::vector<SourceFrame>> parse_llvm_symbolizer(std::string_view text, std::size_t addresses);

class Symbolizer {
 public:
  enum class Tool { None, Addr2line, LlvmSymbolizer };
  // Looks for the tools on PATH (SYNCLINT_PROBE_SYMBOLIZER=addr2line|llvm-symbolizer|none forces one).
  Symbolizer();
  Tool tool() const { return tool_; }
  const std::string& tool_path() const { return tool_path_; }
  // Addresses are file-relative (the module's load bias subtracted). Empty inner vectors when unknown.
  std::vector<std::vector<SourceFrame>> symbolize(const std::string& module,
                                                  const std::vector<std::uint64_t>& offsets) const;

 private:
  Tool tool_ = Tool::None;
  std::string tool_path_;
};

// Runs argv[0] (a path) with argv, stdin from /dev/null, and returns its standard output. Uses
// posix_spawn; strips CUDA_INJECTION64_PATH and LD_PRELOAD from the child's environment.
bool run_capture(const std::vector<std::string>& argv, std::string& out);

std::string find_on_path(std::string_view name);

}  // namespace synclint::probe::inject
