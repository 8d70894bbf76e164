// Loaded into python3 with ctypes by python_site_test: captures the calling Python thread's site the way
// the probe does from a CUPTI callback (ctypes releases the GIL around the call, as .item() does while it
// waits), and prints it.
#include <cstdio>
#include <cstdlib>

#include "python_site.h"
#include "site_filter.h"
#include "site_table.h"

using namespace synclint::probe::inject;

extern "C" __attribute__((visibility("default"))) int synclint_test_capture(char* out, int size) {
  static SiteTable table;
  static SiteFilters filters = make_site_filters(std::getenv("SYNCLINT_PROBE_SKIP"));
  static PythonSites python(filters.python_files, table);
  if (!python.active()) return -2;
  int site = python.capture();
  if (site < 0) return -1;
  auto sites = table.snapshot();
  const auto& s = sites[static_cast<std::size_t>(site)];
  std::snprintf(out, static_cast<std::size_t>(size), "%s:%u:%s:%s", s.path.c_str(), s.line, s.function.c_str(),
                s.language.c_str());
  return site;
}
