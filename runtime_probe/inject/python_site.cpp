#include "python_site.h"

#include <dlfcn.h>
#include <unistd.h>

#include <unordered_map>
#include <utility>
#include <vector>

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
  // For timing calls (sys.monitoring, 3.12+); optional.
  int (*PyFrame_GetLasti)(void*) = nullptr;
  void* (*PyImport_ImportModule)(const char*) = nullptr;
  void* (*PyObject_CallFunctionObjArgs)(void*, ...) = nullptr;
  void* (*PyLong_FromLong)(long) = nullptr;
  long (*PyLong_AsLong)(void*) = nullptr;
  void* (*PyUnicode_FromString)(const char*) = nullptr;
  void* (*PyCFunction_New)(void*, void*) = nullptr;
  void* (*PyErr_Occurred)() = nullptr;
  void* None = nullptr;  // &_Py_NoneStruct
  bool can_time_calls = false;  // all of the above found
};

// sys.monitoring state of the one PythonSites whose calls are timed. Touched only with the GIL held.
struct PythonSites::Monitoring {
  // CPython's PyMethodDef, for the two callbacks (METH_FASTCALL: self, args, nargs).
  struct MethodDef {
    const char* name;
    void* meth;
    int flags;
    const char* doc;
  };
  static constexpr int kMethFastcall = 0x0080;

  long tool = -1;
  void* disable = nullptr;  // sys.monitoring.DISABLE (a reference kept)
  long call_event = 0;
  MethodDef on_call_def{"synclint_on_call", nullptr, kMethFastcall, nullptr};
  MethodDef on_return_def{"synclint_on_c_return", nullptr, kMethFastcall, nullptr};
  void* on_call = nullptr;
  void* on_return = nullptr;
  // Watched calls: code object -> (instruction offset in bytes, site). Code objects are kept alive by
  // PythonSites::codes_.
  std::unordered_map<void*, std::vector<std::pair<long, std::int32_t>>> watched;
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
    sym(a->PyFrame_GetLasti, "PyFrame_GetLasti");
    sym(a->PyImport_ImportModule, "PyImport_ImportModule");
    sym(a->PyObject_CallFunctionObjArgs, "PyObject_CallFunctionObjArgs");
    sym(a->PyLong_FromLong, "PyLong_FromLong");
    sym(a->PyLong_AsLong, "PyLong_AsLong");
    sym(a->PyUnicode_FromString, "PyUnicode_FromString");
    sym(a->PyCFunction_New, "PyCFunction_New");
    sym(a->PyErr_Occurred, "PyErr_Occurred");
    sym(a->None, "_Py_NoneStruct");
    a->can_time_calls = a->PyFrame_GetLasti && a->PyImport_ImportModule && a->PyObject_CallFunctionObjArgs &&
                        a->PyLong_FromLong && a->PyLong_AsLong && a->PyUnicode_FromString && a->PyCFunction_New &&
                        a->PyErr_Occurred && a->None;
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

std::int32_t PythonSites::site_of(void* code, int line) {
  std::lock_guard lock(mu_);
  // Code objects are kept alive by codes_, so (address, line) names one site for the whole run.
  auto key = std::make_pair(code, line);
  if (auto it = sites_.find(key); it != sites_.end()) return it->second;
  const CodeInfo& info = codes_.at(code);
  std::int32_t site =
      table_.intern({info.file, static_cast<std::uint32_t>(line < 0 ? 0 : line), info.function, "python"});
  sites_.emplace(key, site);
  return site;
}

std::int32_t PythonSites::capture(bool read) {
  const Api* a = api();
  if (a == nullptr || a->PyGILState_GetThisThreadState() == nullptr) return -1;
  int gil = a->PyGILState_Ensure();
  void* chosen_code = nullptr;
  int chosen_line = 0;
  int chosen_offset = -1;
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
      if (a->PyFrame_GetLasti != nullptr) chosen_offset = a->PyFrame_GetLasti(frame);
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
  std::int32_t site = -1;
  if (chosen_code != nullptr) {
    site = site_of(chosen_code, chosen_line);
    if (read && sink_ != nullptr && chosen_offset >= 0) watch(*a, chosen_code, chosen_offset, site);
  } else if (fallback_code != nullptr) {
    site = site_of(fallback_code, fallback_line);
  }
  a->PyGILState_Release(gil);
  return site;
}

namespace {

PythonSites* g_timed = nullptr;  // the instance whose calls are timed (set by time_calls)
// Its C-API table, set when it starts sys.monitoring and never freed: the callbacks stay registered with
// the interpreter, so they must answer (None) even after the instance is gone.
const void* g_api = nullptr;

struct PendingCall {
  void* code = nullptr;
  long offset = -1;
  std::uint64_t start = 0;
  std::int32_t site = -1;
};
thread_local PendingCall t_pending;

}  // namespace

PythonSites::~PythonSites() {
  if (g_timed == this) g_timed = nullptr;
  // The monitoring objects stay with the interpreter (it may outlive the probe's teardown).
}

void PythonSites::time_calls(std::uint64_t (*clock)(), CallSink sink) {
  clock_ = clock;
  sink_ = sink;
  g_timed = this;
}

// The callbacks (METH_FASTCALL). They must never leave a Python exception set: they run inside the
// user's program.
struct PythonSitesCallbacks {
  static void* none(const PythonSites::Api& a) {
    a.Py_IncRef(a.None);
    return a.None;
  }
  // CALL(code, instruction_offset, callable, arg0)
  static void* on_call(void*, void* const* args, long nargs) {
    const auto* a = static_cast<const PythonSites::Api*>(g_api);  // set before the callbacks were registered
    PythonSites* ps = g_timed;
    PythonSites::Monitoring* m = ps != nullptr ? ps->monitoring_ : nullptr;
    if (m == nullptr || nargs < 2) return none(*a);
    auto it = m->watched.find(args[0]);
    if (it == m->watched.end()) return none(*a);
    const long offset = a->PyLong_AsLong(args[1]);
    if (offset == -1 && a->PyErr_Occurred() != nullptr) {
      a->PyErr_Clear();
      return none(*a);
    }
    for (const auto& [watched_offset, site] : it->second)
      if (watched_offset == offset) {
        t_pending = PendingCall{args[0], offset, ps->clock_(), site};
        return none(*a);
      }
    a->Py_IncRef(m->disable);  // not a read: never report this instruction again
    return m->disable;
  }
  // C_RETURN / C_RAISE(code, instruction_offset, callable, arg0)
  static void* on_return(void*, void* const* args, long nargs) {
    const auto* a = static_cast<const PythonSites::Api*>(g_api);
    PythonSites* ps = g_timed;
    if (ps != nullptr && nargs >= 2 && t_pending.code != nullptr && args[0] == t_pending.code) {
      const long offset = a->PyLong_AsLong(args[1]);
      if (offset == -1 && a->PyErr_Occurred() != nullptr) a->PyErr_Clear();
      if (offset == t_pending.offset) {
        const PendingCall done = t_pending;
        t_pending = PendingCall{};
        ps->sink_(done.start, ps->clock_(), done.site);
      }
    }
    return none(*a);
  }
};

void PythonSites::watch(const Api& a, void* code, int offset, std::int32_t site) {
  if (monitoring_failed_ || !a.can_time_calls) return;
  if (monitoring_ != nullptr) {  // the common case: a read seen before
    if (auto it = monitoring_->watched.find(code); it != monitoring_->watched.end())
      for (const auto& [o, s] : it->second)
        if (o == offset) return;
  }
  // Python objects made here are released on every path; a failure clears the error and stops timing.
  void* sys = a.PyImport_ImportModule("sys");
  void* mon = sys != nullptr ? a.PyObject_GetAttrString(sys, "monitoring") : nullptr;
  if (sys != nullptr) a.Py_DecRef(sys);
  if (mon == nullptr) {  // before 3.12
    a.PyErr_Clear();
    monitoring_failed_ = true;
    return;
  }
  auto call = [&](const char* fn, void* x, void* y, void* z) -> bool {
    void* f = a.PyObject_GetAttrString(mon, fn);
    if (f == nullptr) return false;
    void* r = a.PyObject_CallFunctionObjArgs(f, x, y, z, nullptr);
    a.Py_DecRef(f);
    if (r == nullptr) return false;
    a.Py_DecRef(r);
    return true;
  };
  auto long_attr = [&](void* obj, const char* name) -> long {
    void* v = a.PyObject_GetAttrString(obj, name);
    if (v == nullptr) return -1;
    long out = a.PyLong_AsLong(v);
    a.Py_DecRef(v);
    return out;
  };
  bool ok = true;
  if (monitoring_ == nullptr) {
    g_api = &a;
    auto* m = new Monitoring;
    m->on_call_def.meth = reinterpret_cast<void*>(&PythonSitesCallbacks::on_call);
    m->on_return_def.meth = reinterpret_cast<void*>(&PythonSitesCallbacks::on_return);
    void* events = a.PyObject_GetAttrString(mon, "events");
    long c_return = -1, c_raise = -1;
    if (events != nullptr) {
      m->call_event = long_attr(events, "CALL");
      c_return = long_attr(events, "C_RETURN");
      c_raise = long_attr(events, "C_RAISE");
      a.Py_DecRef(events);
    }
    m->disable = a.PyObject_GetAttrString(mon, "DISABLE");
    ok = events != nullptr && m->call_event > 0 && c_return > 0 && c_raise > 0 && m->disable != nullptr;
    // A free tool id (the predefined ones are 0 debugger, 1 coverage, 2 profiler, 5 optimizer).
    void* name = ok ? a.PyUnicode_FromString("synclint") : nullptr;
    for (long id : {4L, 3L}) {
      if (name == nullptr) break;
      void* idobj = a.PyLong_FromLong(id);
      if (call("use_tool_id", idobj, name, nullptr)) m->tool = id;
      else a.PyErr_Clear();
      a.Py_DecRef(idobj);
      if (m->tool >= 0) break;
    }
    if (name != nullptr) a.Py_DecRef(name);
    ok = ok && m->tool >= 0;
    if (ok) {
      m->on_call = a.PyCFunction_New(&m->on_call_def, nullptr);
      m->on_return = a.PyCFunction_New(&m->on_return_def, nullptr);
      void* idobj = a.PyLong_FromLong(m->tool);
      for (auto [event, fn] : {std::pair{m->call_event, m->on_call}, std::pair{c_return, m->on_return},
                               std::pair{c_raise, m->on_return}}) {
        void* ev = a.PyLong_FromLong(event);
        ok = ok && fn != nullptr && call("register_callback", idobj, ev, fn);
        a.Py_DecRef(ev);
      }
      a.Py_DecRef(idobj);
    }
    if (!ok) {
      a.PyErr_Clear();
      monitoring_failed_ = true;
      a.Py_DecRef(mon);
      return;  // `m` is leaked on purpose: callbacks may have been registered with pointers into it
    }
    monitoring_ = m;
  }
  Monitoring& m = *monitoring_;
  auto& calls = m.watched[code];
  const bool first = calls.empty();
  calls.emplace_back(offset, site);
  // Another instruction of a frame already watched may have been disabled at its first call.
  if (!first && !call("restart_events", nullptr, nullptr, nullptr)) a.PyErr_Clear();
  if (first) {
    void* idobj = a.PyLong_FromLong(m.tool);
    void* ev = a.PyLong_FromLong(m.call_event);
    if (!call("set_local_events", idobj, code, ev)) a.PyErr_Clear();  // kept as watched: not tried again
    a.Py_DecRef(ev);
    a.Py_DecRef(idobj);
  }
  a.Py_DecRef(mon);
}

}  // namespace synclint::probe::inject
