// CUPTI entry points opened with dlopen at run time, so that a missing or unusable CUPTI turns into a
// report status instead of a process that cannot start.
#pragma once

#include <cupti.h>

#include <string>

namespace synclint::probe::inject {

struct CuptiApi {
  decltype(&cuptiSubscribe) subscribe = nullptr;
  decltype(&cuptiUnsubscribe) unsubscribe = nullptr;
  decltype(&cuptiEnableCallback) enable_callback = nullptr;
  decltype(&cuptiEnableDomain) enable_domain = nullptr;
  decltype(&cuptiGetCallbackName) get_callback_name = nullptr;
  decltype(&cuptiGetTimestamp) get_timestamp = nullptr;
  decltype(&cuptiGetResultString) get_result_string = nullptr;
  decltype(&cuptiActivityEnable) activity_enable = nullptr;
  decltype(&cuptiActivityDisable) activity_disable = nullptr;
  decltype(&cuptiActivityRegisterCallbacks) activity_register_callbacks = nullptr;
  decltype(&cuptiActivityGetNextRecord) activity_get_next_record = nullptr;
  decltype(&cuptiActivityGetNumDroppedRecords) activity_get_num_dropped_records = nullptr;
  decltype(&cuptiActivityFlushAll) activity_flush_all = nullptr;
  decltype(&cuptiActivitySetAttribute) activity_set_attribute = nullptr;                 // optional
  std::string path;  // the library that was opened

  // "CUPTI_ERROR_..." text for a result code (falls back to the number).
  std::string describe(CUptiResult r) const;
};

// Opens CUPTI: `path` (SYNCLINT_CUPTI_PATH) if not empty, else a copy already loaded in the process
// (torch's), else the library found at build time, else the soname on the default search path. Returns
// false and sets `error` when none opens or an entry point is missing.
bool load_cupti(CuptiApi& api, const std::string& path, std::string& error);

}  // namespace synclint::probe::inject
