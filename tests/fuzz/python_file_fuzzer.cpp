// The Python front-end on one file as `synclint check FILE` runs it (UTF-8 check, parse, walk, every rule,
// suppressions, configuration), then the text and SARIF emitters over the report.
#include <sstream>

#include "core/config.h"
#include "emit/emit.h"
#include "engine/engine.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace synclint;
  const std::filesystem::path file = fuzz::scratch() / "input.py";
  fuzz::write_file(file, fuzz::as_text(data, size));
  engine::CheckOptions options;
  options.paths = {file.string()};
  options.jobs = 1;
  Report report;
  try {
    report = engine::run_check(options);
  } catch (const ConfigError&) {
    return 0;
  }
  emit::Options emit_options;
  emit_options.working_directory = fuzz::scratch();
  emit_options.information_uri = "";
  emit_options.read_source = emit::read_source_from_disk();
  std::ostringstream out;
  emit::write(emit::Format::Text, out, report, Catalog::builtin(), emit_options);
  emit::write(emit::Format::Sarif, out, report, Catalog::builtin(), emit_options);
  return 0;
}
