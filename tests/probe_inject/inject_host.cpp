// A stand-in for the CUDA driver: loads the probe library the way CUDA_INJECTION64_PATH does and calls
// InitializeInjection, then exits normally (or with the signal named in argv[2]). Prints its pid.
#include <dlfcn.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: probe_inject_host LIBRARY [term]\n");
    return 2;
  }
  std::printf("%d\n", static_cast<int>(getpid()));
  std::fflush(stdout);
  void* lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    std::fprintf(stderr, "dlopen: %s\n", dlerror());
    return 3;
  }
  auto init = reinterpret_cast<int (*)()>(dlsym(lib, "InitializeInjection"));
  if (init == nullptr) return 4;
  int rc = init();
  if (argc > 2 && std::strcmp(argv[2], "term") == 0) raise(SIGTERM);
  return rc == 1 ? 0 : 5;
}
