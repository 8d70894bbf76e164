// The entry point of the C++ front-end's module (engine/cxx_module.h): the driver of `synclint check` and
// the language server's unit cache behind the engine's interfaces.
#include "core/config.h"
#include "cxx/compile_db.h"
#include "cxx/driver.h"
#include "cxx/unit_cache.h"
#include "engine/cxx_module.h"

namespace synclint::cxx {
namespace {
namespace fs = std::filesystem;

class ProjectDriver final : public engine::CxxProjectDriver {
 public:
  explicit ProjectDriver(const engine::CxxOptions& options) : driver_(options) {}
  bool takes_walked(const fs::path& absolute) override { return driver_.takes_walked(absolute); }
  RunResult analyze(const std::vector<Unit>& units, const RunOptions& options) override {
    return driver_.run(units, options);
  }

 private:
  Driver driver_;
};

template <class Interface, class Implementation>
std::unique_ptr<Interface> make(const engine::CxxOptions& options) {
  try {
    return std::make_unique<Implementation>(options);
  } catch (const DatabaseError& e) {
    throw ConfigError(e.what());
  }
}

const engine::CxxModule kModule{make<engine::CxxProjectDriver, ProjectDriver>,
                                make<engine::CxxUnitCache, UnitCache>};

}  // namespace
}  // namespace synclint::cxx

extern "C" __attribute__((visibility("default"))) const synclint::engine::CxxModule* synclint_cxx_module_v1() {
  return &synclint::cxx::kModule;
}
