#include "cupti_loader.h"

#include <dlfcn.h>

#include <cstdlib>
#include <vector>

namespace synclint::probe::inject {

std::string CuptiApi::describe(CUptiResult r) const {
  const char* s = nullptr;
  if (get_result_string != nullptr && get_result_string(r, &s) == CUPTI_SUCCESS && s != nullptr) return s;
  return "CUPTI error " + std::to_string(static_cast<int>(r));
}

namespace {

template <typename F>
bool bind(void* handle, const char* name, F& slot, std::string& missing) {
  slot = reinterpret_cast<F>(dlsym(handle, name));
  if (slot == nullptr) {
    if (!missing.empty()) missing += ", ";
    missing += name;
  }
  return slot != nullptr;
}

}  // namespace

bool load_cupti(CuptiApi& api, const std::string& path, std::string& error) {
  std::vector<std::pair<std::string, int>> tries;
  if (!path.empty()) {
    tries.emplace_back(path, RTLD_NOW | RTLD_LOCAL);
  } else {
    for (const char* soname : {"libcupti.so.13", "libcupti.so.12", "libcupti.so"})
      tries.emplace_back(soname, RTLD_NOW | RTLD_NOLOAD);
    tries.emplace_back(SYNCLINT_CUPTI_DEFAULT_PATH, RTLD_NOW | RTLD_LOCAL);
    tries.emplace_back("libcupti.so", RTLD_NOW | RTLD_LOCAL);
  }
  void* handle = nullptr;
  std::string last_error;
  for (const auto& [path, flags] : tries) {
    handle = dlopen(path.c_str(), flags);
    if (handle != nullptr) {
      api.path = path;
      break;
    }
    if ((flags & RTLD_NOLOAD) == 0) {
      const char* e = dlerror();
      last_error = e != nullptr ? e : path;
    }
  }
  if (handle == nullptr) {
    error = "cannot load libcupti (" + last_error + ")";
    return false;
  }
  std::string missing;
  bind(handle, "cuptiSubscribe", api.subscribe, missing);
  bind(handle, "cuptiUnsubscribe", api.unsubscribe, missing);
  bind(handle, "cuptiEnableCallback", api.enable_callback, missing);
  bind(handle, "cuptiEnableDomain", api.enable_domain, missing);
  bind(handle, "cuptiGetCallbackName", api.get_callback_name, missing);
  bind(handle, "cuptiGetTimestamp", api.get_timestamp, missing);
  bind(handle, "cuptiGetResultString", api.get_result_string, missing);
  bind(handle, "cuptiActivityEnable", api.activity_enable, missing);
  bind(handle, "cuptiActivityDisable", api.activity_disable, missing);
  bind(handle, "cuptiActivityRegisterCallbacks", api.activity_register_callbacks, missing);
  bind(handle, "cuptiActivityGetNextRecord", api.activity_get_next_record, missing);
  bind(handle, "cuptiActivityGetNumDroppedRecords", api.activity_get_num_dropped_records, missing);
  bind(handle, "cuptiActivityFlushAll", api.activity_flush_all, missing);
  std::string optional;
  bind(handle, "cuptiActivitySetAttribute", api.activity_set_attribute, optional);
  if (!missing.empty()) {
    error = api.path + " lacks " + missing;
    return false;
  }
  return true;
}

}  // namespace synclint::probe::inject
