#include "cxx/command_line.h"

#include "cxx/file_system.h"

#include <clang/Tooling/ArgumentsAdjusters.h>

#include <algorithm>
#include <array>
#include <string_view>

namespace synclint::cxx {
namespace {

bool starts_with_any(std::string_view arg, std::initializer_list<std::string_view> prefixes) {
  return std::any_of(prefixes.begin(), prefixes.end(), [&](std::string_view p) { return arg.starts_with(p); });
}

// Driver flags that load code, with their value in the same argument.
bool is_loading_driver_flag(std::string_view arg) {
  return starts_with_any(arg, {"-fplugin=", "-fpass-plugin=", "-fplugin-arg-", "--plugin=", "-fplugin"});
}

// cc1 flags that load or run a plugin; those without '=' take the next argument.
bool is_loading_cc1_flag(std::string_view arg, bool& takes_value) {
  static constexpr std::array<std::string_view, 5> kWithValue = {"-load", "-plugin", "-add-plugin", "-plugin-arg-",
                                                                 "-fpass-plugin"};
  for (std::string_view f : kWithValue) {
    if (arg == f || (f == "-plugin-arg-" && arg.starts_with(f))) {
      takes_value = true;
      return true;
    }
  }
  takes_value = false;
  return starts_with_any(arg, {"-load=", "-plugin=", "-add-plugin=", "-fpass-plugin=", "-fplugin="});
}

}  // namespace

ParseCommand drop_code_loading_flags(const std::vector<std::string>& argv) {
  ParseCommand out;
  for (std::size_t i = 0; i < argv.size(); ++i) {
    const std::string& arg = argv[i];
    if (i > 0 && is_loading_driver_flag(arg)) {
      out.dropped.push_back(arg);
      continue;
    }
    bool takes_value = false;
    // -Xclang FLAG [-Xclang VALUE]
    if (arg == "-Xclang" && i + 1 < argv.size() && is_loading_cc1_flag(argv[i + 1], takes_value)) {
      std::string shown = "-Xclang " + argv[i + 1];
      i += 1;
      if (takes_value && i + 2 < argv.size() && argv[i + 1] == "-Xclang") {
        shown += " -Xclang " + argv[i + 2];
        i += 2;
      }
      out.dropped.push_back(shown);
      continue;
    }
    if (arg.starts_with("-Xclang=") && is_loading_cc1_flag(std::string_view(arg).substr(8), takes_value)) {
      out.dropped.push_back(arg);
      continue;
    }
    // cc1 flags given straight (a command with -cc1)
    if (i > 0 && is_loading_cc1_flag(arg, takes_value) && std::find(argv.begin(), argv.end(), "-cc1") != argv.end()) {
      std::string shown = arg;
      if (takes_value && i + 1 < argv.size()) shown += " " + argv[++i];
      out.dropped.push_back(shown);
      continue;
    }
    out.argv.push_back(arg);
  }
  return out;
}

ParseCommand parse_command(const std::vector<std::string>& argv, const std::vector<std::string>& extra_before,
                           const std::vector<std::string>& extra, const std::string& file,
                           const std::string& resource_dir) {
  namespace tooling = clang::tooling;
  std::vector<std::string> args = argv.empty() ? std::vector<std::string>{"clang++"} : argv;
  args.insert(args.begin() + 1, extra_before.begin(), extra_before.end());
  args.insert(args.end(), extra.begin(), extra.end());
  // Checked last, so that no flag from any source loads code.
  ParseCommand out = drop_code_loading_flags(args);
  const tooling::ArgumentsAdjuster adjust = tooling::combineAdjusters(
      tooling::getClangStripOutputAdjuster(),
      tooling::combineAdjusters(tooling::getClangStripDependencyFileAdjuster(), tooling::getClangSyntaxOnlyAdjuster()));
  out.argv = adjust(out.argv, file);
  std::vector<std::string> front = {"-resource-dir=" + resource_dir};
  if (file.ends_with(".cu")) {
    // The host side only; a toolkit newer than Clang knows is fine for that; headers it dropped are stood in.
    for (const char* flag : {"--cuda-host-only", "-Wno-unknown-cuda-version", "-idirafter"}) front.emplace_back(flag);
    front.emplace_back(kCudaStandInDir);
  }
  out.argv.insert(out.argv.begin() + 1, front.begin(), front.end());
  return out;
}

}  // namespace synclint::cxx
