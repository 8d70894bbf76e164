#include "python_site.h"

#include <dlfcn.h>
#include <unistd.h>

namespace synclint::probe::inject {

struct PythonSites::Api {
  int (*Py_IsInitialized)() = nullptr;
  int (*IsFinalizing)() = nullptr;  // Py_IsFinalizing (3.13+) or _Py_IsFinalizing (3.12)
  void* (*PyGILState_GetThisThreadState)() = nullptr;
  int (*PyGILState_Ensure)() = nullptr;
  void (*PyGILState_Release)(int) = nullptr;
  void* (*PyEval_GetFrame)() = nullptr;
  void* (*PyFrame_GetCode)(void*) = nullptr;
  void* (*PyFrame_GetBack)(void*) = nullptr;
  int (*PyFrame_GetLineNumber)(void*) = nullptr;
  void* (*PyObject_GetAttrString)(void*, const char*) = nullptr;
  const char* (*PyUnicode_AsUTF8)(void*) = nullptr;
  void (*Py_IncRef)(void*) = nullptr;
  void (*Py_DecRef)(void*) = nullptr;
  void (*PyErr_Clear)() = nullptr;
};

namespace {
template <typename F>
void sym(F& slot, const char* name) {
  slot = reinterpret_cast<F>(dlsym(RTLD_DEFAULT, name));
}
}  // namespace

const PythonSites::Api* PythonSites::api() {
  std::call_once(once_, [this] {
    auto* a = new Api;
    sym(a->Py_IsInitialized, "Py_IsInitialized");
    sym(a->IsFinalizing, "Py_IsFinalizing");
    if (a->IsFinalizing == nullptr) sym(a->IsFinalizing, "_Py_IsFinalizing");
    sym(a->PyGILState_GetThisThreadState, "PyGILState_GetThisThreadState");
    sym(a->PyGILState_Ensure, "PyGILState_Ensure");
    sym(a->PyGILState_Release, "PyGILState_Release");
    sym(a->PyEval_GetFrame, "PyEval_GetFrame");
    sym(a->PyFrame_GetCode, "PyFrame_GetCode");
    sym(a->PyFrame_GetBack, "PyFrame_GetBack");
    sym(a->PyFrame_GetLineNumber, "PyFrame_GetLineNumber");
    sym(a->PyObject_GetAttrString, "PyObject_GetAttrString");
    sym(a->PyUnicode_AsUTF8, "PyUnicode_AsUTF8");
    sym(a->Py_IncRef, "Py_IncRef");
    sym(a->Py_DecRef, "Py_DecRef");
    sym(a->PyErr_Clear, "PyErr_Clear");
    bool complete = a->Py_IsInitialized && a->PyGILState_GetThisThreadState && a->PyGILState_Ensure &&
                    a->PyGILState_Release && a->PyEval_GetFrame && a->PyFrame_GetCode && a->PyFrame_GetBack &&
                    a->PyFrame_GetLineNumber && a->PyObject_GetAttrString && a->PyUnicode_AsUTF8 &&
                    a->Py_IncRef && a->Py_DecRef && a->PyErr_Clear;
    if (complete) {
      api_ = a;
    } else {
      delete a;
    }
  });
  return api_;
}

bool PythonSites::active() {
  const Api* a = api();
  if (a == nullptr || a->Py_IsInitialized() == 0) return false;
  return a->IsFinalizing == nullptr || a->IsFinalizing() == 0;
}

const PythonSites::CodeInfo& PythonSites::code_info(const Api& a, void* code) {
  std::lock_guard lock(mu_);
  if (auto it = codes_.find(code); it != codes_.end()) return it->second;
  CodeInfo info;
  auto read_str = [&](const char* attr) -> std::string {
    void* o = a.PyObject_GetAttrString(code, attr);
    if (o == nullptr) {
      a.PyErr_Clear();
      return {};
    }
    const char* s = a.PyUnicode_AsUTF8(o);
    std::string out = s != nullptr ? s : "";
    if (s == nullptr) a.PyErr_Clear();
    a.Py_DecRef(o);
    return out;
  };
  info.file = read_str("co_filename");
  info.function = read_str("co_qualname");
  if (info.function.empty()) info.function = read_str("co_name");
  if (!info.file.empty() && info.file[0] != '/' && info.file[0] != '<') {
    char cwd[4096];
    if (getcwd(cwd, sizeof cwd) != nullptr) info.file = std::string(cwd) + "/" + info.file;
  }
  info.skip = info.file.empty() || skip_.matches(info.file);
  a.Py_IncRef(code);  // keeps the address from being reused by another code object
  return codes_.emplace(code, std::move(info)).first->second;
}

std::int32_t PythonSites::capture() {
  const Api* a = api();
  if (a == nullptr || a->PyGILState_GetThisThreadState() == nullptr) return -1;
  int gil = a->PyGILState_Ensure();
  void* chosen_code = nullptr;
  int chosen_line = 0;
  void* fallback_code = nullptr;
  int fallback_line = 0;
  void* frame = a->PyEval_GetFrame();  // borrowed
  if (frame != nullptr) a->Py_IncRef(frame);
  while (frame != nullptr) {
    void* code = a->PyFrame_GetCode(frame);  // new reference
    const CodeInfo& info = code_info(*a, code);
    a->Py_DecRef(code);
    if (!info.skip) {
      chosen_code = code;
      chosen_line = a->PyFrame_GetLineNumber(frame);
      a->Py_DecRef(frame);
      break;
    }
    if (fallback_code == nullptr && info.file.rfind("<frozen", 0) != 0) {
      fallback_code = code;
      fallback_line = a->PyFrame_GetLineNumber(frame);
    }
    void* back = a->PyFrame_GetBack(frame);  // new reference
    a->Py_DecRef(frame);
    frame = back;
  }
  a->PyGILState_Release(gil);
  if (chosen_code == nullptr) {
    chosen_code = fallback_code;
    chosen_line = fallback_line;
  }
  if (chosen_code == nullptr) return -1;
  std::lock_guard lock(mu_);
  // Code objects are kept alive by codes_, so (address, line) names one site for the whole run.
  auto key = std::make_pair(chosen_code, chosen_line);
  if (auto it = sites_.find(key); it != sites_.end()) return it->second;
  const CodeInfo& info = codes_.at(chosen_code);
  std::int32_t site =
      table_.intern({info.file, static_cast<std::uint32_t>(chosen_line < 0 ? 0 : chosen_line), info.function, "python"});
  sites_.emplace(key, site);
  return site;
}

}  // namespace synclint::probe::inject
