// Configuration loading as `check` finds it: the input's first part (up to a NUL byte) is a pyproject.toml,
// the rest a .synclint.toml, each in its own folder. Each found configuration then answers what `check`
// asks of it (rule selection, per-file ignores, exclude globs, severities) and adds its extra-sync-apis
// to a catalog.
#include "core/catalog.h"
#include "core/config.h"
#include "fuzz_support.h"

namespace {

void use(const synclint::Config& config) {
  using namespace synclint;
  Catalog catalog = Catalog::builtin();
  apply_extra_apis(config, catalog);
  for (const char* path : {"train.py", "src/model/layers.py", "vendor/x/y.cpp", "a b/[c].py", ""}) {
    const std::filesystem::path p = config.root / path;
    (void)config.excluded(p);
    for (const char* rule : {"SYNC001", "SYNC005", "SYNC100"}) (void)config.rule_enabled(rule, p);
  }
  (void)config.severity_for("SYNC001", Severity::Warning);
  (void)describe_config(config);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace synclint;
  const auto parts = fuzz::split_parts(fuzz::as_text(data, size), 2);
  const std::filesystem::path dirs[] = {fuzz::scratch() / "py", fuzz::scratch() / "own"};
  fuzz::write_file(dirs[0] / "pyproject.toml", parts[0]);
  fuzz::write_file(dirs[1] / ".synclint.toml", parts.size() > 1 ? parts[1] : std::string_view("select = [\"SYNC\"]\n"));
  for (const auto& dir : dirs) {
    try {
      use(find_config(dir, Catalog::builtin()));
    } catch (const ConfigError&) {
    }
  }
  return 0;
}
