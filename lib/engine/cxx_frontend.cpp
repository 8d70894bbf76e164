#include "engine/cxx_frontend.h"

#include "core/config.h"

#if SYNCLINT_HAVE_CXX
#include "cxx/compile_db.h"
#include "cxx/driver.h"
#endif

namespace synclint::engine {

#if SYNCLINT_HAVE_CXX

struct CxxFrontend::Impl {
  explicit Impl(const CxxOptions& options) : driver(options) {}
  cxx::Driver driver;
};

CxxFrontend::CxxFrontend(const CxxOptions& options) {
  try {
    impl_ = std::make_unique<Impl>(options);
  } catch (const cxx::DatabaseError& e) {
    throw ConfigError(e.what());
  }
}

bool CxxFrontend::takes_walked(const std::filesystem::path& absolute) { return impl_->driver.takes_walked(absolute); }

CxxProjectResult CxxFrontend::analyze(const std::vector<CxxUnit>& units, const Catalog& catalog, bool report_cold,
                                      unsigned jobs, const std::filesystem::path& project_root) {
  std::vector<cxx::Unit> in;
  in.reserve(units.size());
  for (const CxxUnit& u : units) in.push_back({u.path, u.open_path});
  cxx::RunOptions options;
  options.catalog = &catalog;
  options.report_cold = report_cold;
  options.jobs = jobs;
  options.project_root = project_root;
  cxx::RunResult result = impl_->driver.run(in, options);
  return {std::move(result.units), std::move(result.headers)};
}

#else

struct CxxFrontend::Impl {};
CxxFrontend::CxxFrontend(const CxxOptions&) {}
bool CxxFrontend::takes_walked(const std::filesystem::path&) { return false; }
CxxProjectResult CxxFrontend::analyze(const std::vector<CxxUnit>&, const Catalog&, bool, unsigned,
                                      const std::filesystem::path&) {
  return {};
}

#endif

CxxFrontend::~CxxFrontend() = default;

}  // namespace synclint::engine
