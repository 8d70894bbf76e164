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
  // True when the process runs a live Python interpreter (checked on each call: cheap).
  bool active();
  // The innermost frame of the calling thread outside the skipped files (the innermost frame at all if
  // every frame is skipped); -1 when the thread runs no Python code.
  std::int32_t capture();

 private:
  struct Api;
  struct CodeInfo {
    std::string file, function;
    bool skip = false;
  };
  const Api* api();
  const CodeInfo& code_info(const Api& a, void* code);

  const SkipList& skip_;
  SiteTable& table_;
  std::once_flag once_;
  const Api* api_ = nullptr;
  std::mutex mu_;
  std::unordered_map<void*, CodeInfo> codes_;  // holds a reference to each code object
  std::map<std::pair<void*, int>, std::int32_t> sites_;  // (code, line) -> site
};

}  // namespace synclint::probe::inject
