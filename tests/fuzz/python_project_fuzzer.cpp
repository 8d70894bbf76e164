// The Python front-end on a small project: the input's NUL bytes split it into up to four modules
// (a.py .. d.py, which import each other by those names), checked together so that the cross-file
// rounds run; then the text emitter.
#include <sstream>

#include "core/config.h"
#include "emit/emit.h"
#include "engine/engine.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace synclint;
  const std::filesystem::path dir = fuzz::scratch() / "project";
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  const auto parts = fuzz::split_parts(fuzz::as_text(data, size), 4);
  const char* names[] = {"a.py", "b.py", "c.py", "d.py"};
  for (std::size_t i = 0; i < parts.size(); ++i) fuzz::write_file(dir / names[i], parts[i]);
  engine::CheckOptions options;
  options.paths = {dir.string()};
  options.jobs = 1;
  Report report;
  try {
    report = engine::run_check(options);
  } catch (const ConfigError&) {
    return 0;
  }
  emit::Options emit_options;
  emit_options.read_source = emit::read_source_from_disk();
  std::ostringstream out;
  emit::write(emit::Format::Text, out, report, Catalog::builtin(), emit_options);
  return 0;
}
