// Loaded into python3 with ctypes by python_site_test: captures the calling Python thread's site the way
// the probe does from a CUPTI callback (ctypes releases the GIL around the call, as .item() does while it
// waits), and prints it.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "python_site.h"
#include "site_filter.h"
#include "site_table.h"

using namespace synclint::probe::inject;

namespace {
struct State {
  SiteTable table;
  SiteFilters filters = make_site_filters(std::getenv("SYNCLINT_PROBE_SKIP"));
  PythonSites python{filters.python_files, table};
};
State& state() {
  static State s;
  return s;
}
std::uint64_t steady_ns() {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count());
}
void print_call(std::uint64_t start, std::uint64_t end, std::int32_t site) {
  const auto sites = state().table.snapshot();
  const auto& s = sites[static_cast<std::size_t>(site)];
  std::printf("T %s:%u:%s %llu\n", s.path.c_str(), s.line, s.function.c_str(),
              static_cast<unsigned long long>(end - start));
  std::fflush(stdout);
}
}  // namespace

extern "C" __attribute__((visibility("default"))) int synclint_test_capture(char* out, int size) {
  PythonSites& python = state().python;
  if (!python.active()) return -2;
  int site = python.capture();
  if (site < 0) return -1;
  auto sites = state().table.snapshot();
  const auto& s = sites[static_cast<std::size_t>(site)];
  std::snprintf(out, static_cast<std::size_t>(size), "%s:%u:%s:%s", s.path.c_str(), s.line, s.function.c_str(),
                s.language.c_str());
  return site;
}

// From now on, the Python calls that capture sites are timed; each timed call prints
// "T <path>:<line>:<function> <ns>".
extern "C" __attribute__((visibility("default"))) void synclint_test_time_calls() {
  state().python.time_calls(steady_ns, print_call);
}
