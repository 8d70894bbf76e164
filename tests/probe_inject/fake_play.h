// What the test hosts need to play to the injected probe through the stand-in CUPTI (fake_cupti.cpp): its
// two entry points, found in the copy of the library the probe opened, and the stand-in's clock. Each host
// keeps its own `api` (ENTER, the call's work, EXIT): the probe's sites are the frames that call CUDA.
#pragma once

#include <cupti.h>
#include <dlfcn.h>

#include <atomic>
#include <cstdint>
#include <ctime>

namespace synclint::probe::testing {

using CallFn = void (*)(CUpti_CallbackId, CUpti_ApiCallbackSite, uint32_t, uint64_t*, const void*);
using KernelFn = void (*)(uint64_t, uint64_t, uint32_t);
inline CallFn g_call = nullptr;
inline KernelFn g_kernel = nullptr;
inline std::atomic<uint32_t> g_correlation{0};

// Finds fake_cupti_call and fake_cupti_kernel in the stand-in at `path`; false when it has neither.
inline bool bind_stand_in(const char* path) {
  void* fake = dlopen(path, RTLD_NOW | RTLD_LOCAL);  // the copy the probe opened
  if (fake == nullptr) return false;
  g_call = reinterpret_cast<CallFn>(dlsym(fake, "fake_cupti_call"));
  g_kernel = reinterpret_cast<KernelFn>(dlsym(fake, "fake_cupti_kernel"));
  return g_call != nullptr && g_kernel != nullptr;
}

inline uint64_t now_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000ull + static_cast<uint64_t>(ts.tv_nsec);
}

inline void spin_until(uint64_t t) {
  while (now_ns() < t) {
  }
}

}  // namespace synclint::probe::testing
