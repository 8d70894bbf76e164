#include "engine/cxx_module.h"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>
#include <system_error>

#include "core/config.h"

namespace synclint::engine {
namespace fs = std::filesystem;

namespace {

#if SYNCLINT_HAVE_CXX

constexpr const char* kModule = SYNCLINT_CXX_MODULE_NAME;

// SYNCLINT_CXX_FRONTEND, else next to this executable (a build tree: <build>/tools/synclint/) or under
// an install's <prefix>/lib/synclint/ (the program in <prefix>/bin/).
const CxxModule* load() {
  std::vector<fs::path> candidates;
  if (const char* env = std::getenv("SYNCLINT_CXX_FRONTEND"); env && *env) {
    candidates.emplace_back(env);
  } else {
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (ec) throw ConfigError(std::string("cannot find the C++ front-end ") + kModule + ": /proc/self/exe: " + ec.message());
    candidates = {exe.parent_path() / kModule, (exe.parent_path() / "../lib/synclint" / kModule).lexically_normal()};
  }
  std::string tried;
  for (const fs::path& p : candidates) {
    std::error_code ec;
    if (!fs::is_regular_file(p, ec)) {
      tried += "\n  " + p.string();
      continue;
    }
    void* handle = ::dlopen(p.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) throw ConfigError(std::string("cannot load the C++ front-end: ") + ::dlerror());
    using Entry = const CxxModule* (*)();
    auto entry = reinterpret_cast<Entry>(::dlsym(handle, "synclint_cxx_module_v1"));
    if (entry == nullptr)
      throw ConfigError(p.string() + " is not synclint's C++ front-end (no synclint_cxx_module_v1 in it)");
    return entry();  // never unloaded
  }
  throw ConfigError(std::string("C++ files need the C++ front-end, ") + kModule + ", which is missing (looked for:" +
                    tried + "\n); install it with synclint, or set SYNCLINT_CXX_FRONTEND to its path");
}

#endif

}  // namespace

const CxxModule& cxx_module() {
#if SYNCLINT_HAVE_CXX
  static std::once_flag once;
  static const CxxModule* module = nullptr;
  std::call_once(once, [] { module = load(); });  // a throw leaves it to the next call to try again
  return *module;
#else
  throw ConfigError("this synclint was built without the C++ front-end (Clang 19 was not found)");
#endif
}

}  // namespace synclint::engine
