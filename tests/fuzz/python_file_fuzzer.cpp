// The Python front-end on one file as `synclint check FILE` runs it (UTF-8 check, parse, walk, every rule,
// suppressions, configuration), then the text and SARIF emitters over the report.
#include "engine_fuzz.h"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  synclint::fuzz::warm_up();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace synclint;
  const std::filesystem::path file = fuzz::scratch() / "input.py";
  fuzz::write_file(file, fuzz::as_text(data, size));
  fuzz::check_and_emit({file.string()}, fuzz::scratch(), {emit::Format::Text, emit::Format::Sarif});
  return 0;
}
