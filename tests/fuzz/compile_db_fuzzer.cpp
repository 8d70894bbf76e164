// C++ compile commands: with an even first byte the rest of the input is a build/compile_commands.json
// found above a source file (the database reader, then the command of a listed or a neighbouring file);
// with an odd one, NUL-separated flags given after `--`. Either command then goes through the argument
// adjuster that makes the syntax-only parse command.
#include "cxx/command_line.h"
#include "cxx/compile_db.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace synclint;
  if (size == 0) return 0;
  const std::string_view text = fuzz::as_text(data + 1, size - 1);
  const std::filesystem::path root = fuzz::scratch() / "db";
  std::optional<std::vector<std::string>> fixed;
  if (data[0] & 1) {
    fixed.emplace();
    for (std::string_view arg : fuzz::split_parts(text, 64)) fixed->emplace_back(arg);
  } else {
    fuzz::write_file(root / "build" / "compile_commands.json", text);
  }
  cxx::CommandSource source(std::nullopt, fixed);
  for (const char* file : {"src/train.cpp", "src/kernels.cu", "include/model.h"}) {
    try {
      const std::filesystem::path path = root / file;
      (void)source.lists(path);
      const auto command = source.command_for(path);
      if (!command) continue;
      (void)cxx::parse_command(command->argv, {"-DBEFORE"}, {"-DAFTER"}, path.string(), "/resource");
      (void)cxx::drop_code_loading_flags(command->argv);
    } catch (const cxx::DatabaseError&) {
    }
  }
  return 0;
}
