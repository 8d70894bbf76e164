// Which CUDA API calls the probe records, and what each does to the calling host thread.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "analysis/events.h"

namespace synclint::probe::inject {

enum class ApiDomain : std::uint8_t { Runtime, Driver };

struct ApiClass {
  HostCallKind kind = HostCallKind::Other;
  bool blocking = false;        // the host waits for GPU work: the call gets a source site
  bool check_pageable = false;  // an async copy that blocks when its host side is pageable memory
  bool memset = false;          // a driver memset: its GPU record carries the driver's correlation id
  bool implicit = false;        // syncs as a side effect (cudaFree): the Python call that made it is no read
};

// "cudaLaunchKernel_v7000" -> "cudaLaunchKernel", "cudaMemcpyAsync_ptsz_v7000" -> "cudaMemcpyAsync".
std::string normalize_api_name(std::string_view name);

// The class of a (normalized) API name, or nothing for calls the probe ignores (cudaGetDevice, ...).
std::optional<ApiClass> classify_api(ApiDomain domain, std::string_view normalized_name);

}  // namespace synclint::probe::inject
