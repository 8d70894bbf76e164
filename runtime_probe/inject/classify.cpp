#include "classify.h"

#include <array>
#include <cctype>

namespace synclint::probe::inject {

namespace {

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
bool contains(std::string_view s, std::string_view p) { return s.find(p) != std::string_view::npos; }

bool strip_suffix(std::string& s) {
  for (std::string_view suf : {"_ptsz", "_ptds"}) {
    if (s.size() > suf.size() && std::string_view(s).substr(s.size() - suf.size()) == suf) {
      s.resize(s.size() - suf.size());
      return true;
    }
  }
  // _v<digits>
  std::size_t i = s.size();
  while (i > 0 && std::isdigit(static_cast<unsigned char>(s[i - 1])) != 0) --i;
  if (i < s.size() && i > 2 && s[i - 1] == 'v' && s[i - 2] == '_') {
    s.resize(i - 2);
    return true;
  }
  return false;
}

std::optional<ApiClass> runtime_class(std::string_view n) {
  ApiClass c;
  if (n == "cudaStreamSynchronize") {
    c.kind = HostCallKind::StreamSynchronize;
    c.blocking = true;
  } else if (n == "cudaDeviceSynchronize" || n == "cudaThreadSynchronize" || n == "cudaFree" ||
             n == "cudaFreeHost") {
    // cudaFree and cudaFreeHost synchronize the device before they release memory.
    c.kind = HostCallKind::DeviceSynchronize;
    c.blocking = true;
    c.implicit = starts_with(n, "cudaFree");
  } else if (n == "cudaEventSynchronize") {
    c.kind = HostCallKind::EventSynchronize;
    c.blocking = true;
  } else if (starts_with(n, "cudaMemcpy")) {
    if (contains(n, "Async")) {
      c.kind = HostCallKind::AsyncCopy;
      c.check_pageable = n == "cudaMemcpyAsync";
    } else {
      c.kind = HostCallKind::BlockingCopy;
      c.blocking = true;
    }
  } else if (starts_with(n, "cudaMemset") || starts_with(n, "cudaLaunch") || n == "cudaGraphLaunch") {
    c.kind = HostCallKind::Launch;
  } else if (starts_with(n, "cudaEventRecord") || n == "cudaStreamWaitEvent" || n == "cudaEventQuery" ||
             n == "cudaStreamQuery" || n == "cudaMalloc" || n == "cudaMallocAsync" || n == "cudaFreeAsync" ||
             n == "cudaMallocHost" || n == "cudaHostAlloc" || n == "cudaHostRegister" ||
             n == "cudaHostUnregister" || n == "cudaMallocManaged") {
    c.kind = HostCallKind::Other;
  } else {
    return std::nullopt;
  }
  return c;
}

std::optional<ApiClass> driver_class(std::string_view n) {
  ApiClass c;
  if (n == "cuStreamSynchronize") {
    c.kind = HostCallKind::StreamSynchronize;
    c.blocking = true;
  } else if (n == "cuCtxSynchronize") {
    c.kind = HostCallKind::DeviceSynchronize;
    c.blocking = true;
  } else if (n == "cuEventSynchronize") {
    c.kind = HostCallKind::EventSynchronize;
    c.blocking = true;
  } else if (starts_with(n, "cuMemcpy")) {
    if (contains(n, "Async")) {
      c.kind = HostCallKind::AsyncCopy;
      c.check_pageable = n == "cuMemcpyDtoHAsync" || n == "cuMemcpyAsync";
    } else {
      c.kind = HostCallKind::BlockingCopy;
      c.blocking = true;
    }
  } else if (starts_with(n, "cuMemsetD")) {
    c.kind = HostCallKind::Launch;
    c.memset = true;
  } else if (n == "cuLaunchKernel" || n == "cuLaunchKernelEx" || n == "cuLaunchCooperativeKernel" ||
             n == "cuGraphLaunch" || n == "cuLaunchHostFunc") {
    c.kind = HostCallKind::Launch;
  } else {
    return std::nullopt;
  }
  return c;
}

}  // namespace

std::string normalize_api_name(std::string_view name) {
  std::string s(name);
  while (strip_suffix(s)) {
  }
  return s;
}

std::optional<ApiClass> classify_api(ApiDomain domain, std::string_view n) {
  return domain == ApiDomain::Runtime ? runtime_class(n) : driver_class(n);
}

}  // namespace synclint::probe::inject
