// What a native site capture pays the first time it meets a return address: the lookup of the loaded object
// that holds it (NativeSites::module_of, once per distinct address, on the program's thread inside the
// blocking call's exit callback). A capture through LibTorch offers every frame up to the user's; a new
// stack brings a dozen new LibTorch addresses at once. Times NativeSites::site_for on N distinct addresses
// spread over LibTorch's code (cold, then again warm), beside glibc's dladdr1 on N other addresses there,
// which the probe called for each new address before 2026-12-02: in one process, medians of REPS rounds.
//
//   native_capture [N=24] [REPS=9] [LIBRARY=libtorch_cpu.so]
#include <dlfcn.h>
#include <link.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "native_site.h"
#include "site_filter.h"
#include "site_table.h"

using namespace synclint::probe::inject;
using clock_type = std::chrono::steady_clock;

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

double us_since(clock_type::time_point t0) {
  return std::chrono::duration<double, std::micro>(clock_type::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 24;
  const int reps = argc > 2 ? std::atoi(argv[2]) : 9;
  const char* library = argc > 3 ? argv[3] : "libtorch_cpu.so";
  if (n < 1 || reps < 1) {
    std::fprintf(stderr, "usage: native_capture [N>0] [REPS>0] [LIBRARY]\n");
    return 2;
  }
  void* handle = dlopen(library, RTLD_NOW | RTLD_GLOBAL);
  link_map* lm = nullptr;
  if (handle == nullptr || dlinfo(handle, RTLD_DI_LINKMAP, &lm) != 0 || lm == nullptr) {
    std::fprintf(stderr, "native_capture: cannot open %s (Debian: libtorch-dev): %s\n", library, dlerror());
    return 2;
  }
  // The object's executable segment, from its program headers.
  std::uintptr_t text = 0, text_size = 0;
  const auto* ehdr = reinterpret_cast<const ElfW(Ehdr)*>(lm->l_addr);
  const auto* phdr = reinterpret_cast<const ElfW(Phdr)*>(lm->l_addr + ehdr->e_phoff);
  for (int i = 0; i < ehdr->e_phnum; ++i)
    if (phdr[i].p_type == PT_LOAD && (phdr[i].p_flags & PF_X) != 0 && phdr[i].p_memsz > text_size) {
      text = lm->l_addr + phdr[i].p_vaddr;
      text_size = phdr[i].p_memsz;
    }
  if (text_size < static_cast<std::uintptr_t>(4 * n * reps + 4)) {
    std::fprintf(stderr, "native_capture: %s has no executable segment large enough\n", library);
    return 2;
  }
  // Distinct addresses for every round and both lookups: no cache helps either.
  const std::uintptr_t step = text_size / static_cast<std::uintptr_t>(2 * n * reps + 1);
  auto address = [&](int round, int which, int k) {
    return text + step * static_cast<std::uintptr_t>((round * 2 + which) * n + k) + 1;
  };
  const SiteFilters filters = make_site_filters(nullptr);
  std::vector<double> cold, warm, old;
  std::int32_t sink = 0;
  for (int r = 0; r < reps; ++r) {
    SiteTable table;
    NativeSites sites(filters, table);
    std::vector<void*> frames;
    for (int k = 0; k < n; ++k) frames.push_back(reinterpret_cast<void*>(address(r, 0, k)));
    frames.push_back(reinterpret_cast<void*>(&median));  // the user's frame, in this program
    auto t0 = clock_type::now();
    sink += sites.site_for(frames.data(), static_cast<int>(frames.size()));
    cold.push_back(us_since(t0));
    t0 = clock_type::now();
    sink += sites.site_for(frames.data(), static_cast<int>(frames.size()));
    warm.push_back(us_since(t0));
    t0 = clock_type::now();
    for (int k = 0; k < n; ++k) {
      Dl_info info{};
      link_map* found = nullptr;
      sink += dladdr1(reinterpret_cast<void*>(address(r, 1, k)), &info, reinterpret_cast<void**>(&found),
                      RTLD_DL_LINKMAP);
    }
    old.push_back(us_since(t0));
  }
  std::printf("%s: %d new return addresses in a capture, medians of %d rounds\n", library, n, reps);
  std::printf("  NativeSites::site_for, first time:  %10.1f us (%.2f us per address)\n", median(cold), median(cold) / n);
  std::printf("  NativeSites::site_for, again:       %10.1f us\n", median(warm));
  std::printf("  dladdr1 on as many new addresses:   %10.1f us (%.2f us per address)\n", median(old), median(old) / n);
  return sink == 0x7fffffff ? 1 : 0;
}
