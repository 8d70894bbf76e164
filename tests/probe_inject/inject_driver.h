// What the CUDA driver does with CUDA_INJECTION64_PATH, for the test hosts: print the pid (the tests find
// the report by it), open the probe library and call its InitializeInjection.
#pragma once

#include <dlfcn.h>
#include <unistd.h>

#include <cstdio>

namespace synclint::probe::testing {

constexpr int kCannotOpen = -3, kNoEntryPoint = -4;

// InitializeInjection's result, or kCannotOpen / kNoEntryPoint.
inline int inject_probe(const char* library) {
  std::printf("%d\n", static_cast<int>(getpid()));
  std::fflush(stdout);
  void* lib = dlopen(library, RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    std::fprintf(stderr, "dlopen: %s\n", dlerror());
    return kCannotOpen;
  }
  auto init = reinterpret_cast<int (*)()>(dlsym(lib, "InitializeInjection"));
  return init == nullptr ? kNoEntryPoint : init();
}

}  // namespace synclint::probe::testing
