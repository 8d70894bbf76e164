// Python call sites, read from the interpreter of the probed process through its C-API, resolved with
// dlsym at run time (the probe has no Python headers and no libpython dependency). Used only while
// Py_IsInitialized() is nonzero and the interpreter is not finalizing, and only on threads that already
// have a Python thread state (never creates one).
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <unordered_map>

#include "site_filter.h"
#include "site_table.h"

namespace synclint::probe::inject {

class PythonSites {
 public:
  PythonSites(const SkipList& skip, SiteTable& table) : skip_(skip), table_(table) {}
  ~PythonSites();
  PythonSites(const PythonSites&) = delete;
  PythonSites& operator=(const PythonSites&) = delete;

  // Timing of the Python calls that block (Python 3.12+, through sys.monitoring; nothing on older
  // versions): once capture() has seen a blocking call made at an instruction of the user's frame (the
  // `.item()`, `float(t)`, `print(t)` call), that CALL instruction is watched, and each later call made
  // there is timed from the CALL event to its C_RETURN (or C_RAISE): the host time of the whole read,
  // interpreter and framework included, which the CUDA calls inside it do not show. Only watched
  // instructions report (the others of the frame are disabled at their first call), so the cost is
  // two callbacks per read. `sink` gets (start, end, site) on the calling thread, on `clock`'s time
  // line. Calls to Python functions (no C_RETURN) are not timed. One PythonSites per process uses it.
  using CallSink = void (*)(std::uint64_t start_ns, std::uint64_t end_ns, std::int32_t site);
  void time_calls(std::uint64_t (*clock)(), CallSink sink);
  // True when the process runs a live Python interpreter (checked on each call: cheap).
  bool active();
  // The innermost frame of the calling thread outside the skipped files (the innermost frame at all if
  // every frame is skipped); -1 when the thread runs no Python code. `read`: the blocking call is a read
  // or an explicit sync, whose Python call may be timed (not a side-effect sync such as cudaFree, made
  // somewhere inside a forward pass).
  std::int32_t capture(bool read = true);

 private:
  friend struct PythonSitesCallbacks;
  struct Api;
  struct Monitoring;
  struct CodeInfo {
    std::string file, function;
    bool skip = false;
  };
  const Api* api();
  const CodeInfo& code_info(const Api& a, void* code);
  std::int32_t site_of(void* code, int line);
  // With the GIL held: watches the call at `offset` of `code` (site `site`), starting sys.monitoring on
  // first use.
  void watch(const Api& a, void* code, int offset, std::int32_t site);

  const SkipList& skip_;
  SiteTable& table_;
  std::once_flag once_;
  const Api* api_ = nullptr;
  std::mutex mu_;
  std::unordered_map<void*, CodeInfo> codes_;  // holds a reference to each code object
  std::map<std::pair<void*, int>, std::int32_t> sites_;  // (code, line) -> site
  std::uint64_t (*clock_)() = nullptr;
  CallSink sink_ = nullptr;
  Monitoring* monitoring_ = nullptr;  // null until the first watch; stays once started
  bool monitoring_failed_ = false;
};

}  // namespace synclint::probe::inject
