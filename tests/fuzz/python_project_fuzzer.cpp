// The Python front-end on a small project: the input's NUL bytes split it into up to four modules
// (a.py .. d.py, which import each other by those names), checked together so that the cross-file
// rounds run; then the text emitter.
#include "engine_fuzz.h"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  synclint::fuzz::warm_up();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace synclint;
  const std::filesystem::path dir = fuzz::scratch() / "project";
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  const auto parts = fuzz::split_parts(fuzz::as_text(data, size), 4);
  const char* names[] = {"a.py", "b.py", "c.py", "d.py"};
  for (std::size_t i = 0; i < parts.size(); ++i) fuzz::write_file(dir / names[i], parts[i]);
  fuzz::check_and_emit({dir.string()}, fuzz::scratch(), {emit::Format::Text});
  return 0;
}
