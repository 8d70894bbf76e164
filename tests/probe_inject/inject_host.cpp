// A stand-in for the CUDA driver: loads the probe library the way CUDA_INJECTION64_PATH does and calls
// InitializeInjection, then exits normally (or with the signal named in argv[2]). Prints its pid.
#include <signal.h>

#include <cstdio>
#include <cstring>

#include "inject_driver.h"

int main(int argc, char** argv) {
  using namespace synclint::probe::testing;
  if (argc < 2) {
    std::fprintf(stderr, "usage: probe_inject_host LIBRARY [term]\n");
    return 2;
  }
  const int rc = inject_probe(argv[1]);
  if (rc == kCannotOpen) return 3;
  if (rc == kNoEntryPoint) return 4;
  if (argc > 2 && std::strcmp(argv[2], "term") == 0) raise(SIGTERM);
  return rc == 1 ? 0 : 5;
}
