#include "engine/cxx_frontend.h"

#include <map>
#include <optional>

#include "core/config.h"

#if SYNCLINT_HAVE_CXX
#include "cxx/database_search.h"
#endif

namespace synclint::engine {
namespace fs = std::filesystem;

struct CxxFrontend::Impl {
  CxxOptions options;
  std::unique_ptr<CxxProjectDriver> driver;         // once loaded
  std::map<fs::path, std::optional<fs::path>> databases;  // nearest compile_commands.json, by folder

  CxxProjectDriver& loaded() {
    if (!driver) driver = cxx_module().project_driver(options);
    return *driver;
  }
};

CxxFrontend::CxxFrontend(const CxxOptions& options) : impl_(std::make_unique<Impl>()) {
  impl_->options = options;
  // Options that ask for C++ are checked (and the module loaded) at once, as a bad -p is an error even
  // when no C++ source turns up.
  if (SYNCLINT_HAVE_CXX && (options.build_path || options.fixed_args || options.header_filter)) impl_->loaded();
}

bool CxxFrontend::takes_walked(const fs::path& absolute) {
#if SYNCLINT_HAVE_CXX
  if (!impl_->driver && (!cxx::is_translation_unit_name(absolute) || !cxx::nearest_database(absolute, impl_->databases)))
    return false;  // no database lists it: the module is not needed to say so
  return impl_->loaded().takes_walked(absolute);
#else
  (void)absolute;
  return false;
#endif
}

CxxProjectResult CxxFrontend::analyze(const std::vector<CxxUnit>& units, const Catalog& catalog, bool report_cold,
                                      unsigned jobs, const fs::path& project_root) {
  if (!SYNCLINT_HAVE_CXX) return {};
  return impl_->loaded().analyze(units, {&catalog, report_cold, jobs, project_root});
}

CxxFrontend::~CxxFrontend() = default;

}  // namespace synclint::engine
