// What symbolizing a module's new sites costs the probe's window thread, batch after batch: the tool
// spawned for each batch (the probe until 2026-12-02: the module's debug information loaded every time)
// against one tool kept running per module (Symbolizer). Times BATCHES batches of one address each, in ms,
// medians of REPS rounds (each round a fresh Symbolizer, so each round's first batch starts the tool).
//
//   symbolize_batches [MODULE OFFSET] [BATCHES=5] [REPS=5]
//     MODULE OFFSET: a module with debug information and a file-relative address in it (hex), e.g. from
//     `nm`; by default this program and its main.
#include <dlfcn.h>
#include <link.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "symbolizer.h"

using namespace synclint::probe::inject;

namespace {
double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}
double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}
}  // namespace

int main(int argc, char** argv) {
  std::string module;
  std::uint64_t offset = 0;
  int at = 1;
  if (argc > 2 && argv[1][0] != '\0' && (argv[1][0] < '0' || argv[1][0] > '9')) {
    module = argv[1];
    offset = std::strtoull(argv[2], nullptr, 16);
    at = 3;
  } else {
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    Dl_info info{};
    link_map* lm = nullptr;
    if (n <= 0 || dladdr1(reinterpret_cast<void*>(&main), &info, reinterpret_cast<void**>(&lm), RTLD_DL_LINKMAP) == 0) {
      std::fprintf(stderr, "symbolize_batches: cannot find this program's own module\n");
      return 2;
    }
    module.assign(exe, static_cast<std::size_t>(n));
    offset = reinterpret_cast<std::uintptr_t>(&main) - lm->l_addr;
  }
  const int batches = argc > at ? std::atoi(argv[at]) : 5;
  const int reps = argc > at + 1 ? std::atoi(argv[at + 1]) : 5;
  if (batches < 1 || reps < 1) {
    std::fprintf(stderr, "usage: symbolize_batches [MODULE OFFSET] [BATCHES>0] [REPS>0]\n");
    return 2;
  }
  Symbolizer probe_default;
  if (probe_default.tool() != Symbolizer::Tool::Addr2line) {
    std::fprintf(stderr, "symbolize_batches: no addr2line on PATH\n");
    return 2;
  }
  char hex[32];
  std::snprintf(hex, sizeof hex, "0x%llx", static_cast<unsigned long long>(offset));
  std::vector<std::vector<double>> spawned(static_cast<std::size_t>(batches)), kept(static_cast<std::size_t>(batches));
  std::size_t unknown = 0;
  for (int r = 0; r < reps; ++r) {
    for (int b = 0; b < batches; ++b) {
      const auto t0 = std::chrono::steady_clock::now();
      std::string out;
      run_capture({probe_default.tool_path(), "-a", "-f", "-C", "-i", "-e", module, hex}, out);
      spawned[static_cast<std::size_t>(b)].push_back(ms_since(t0));
      unknown += parse_addr2line(out, 1)[0].empty();
    }
    Symbolizer sym(Symbolizer::Tool::Addr2line, probe_default.tool_path());
    for (int b = 0; b < batches; ++b) {
      const auto t0 = std::chrono::steady_clock::now();
      unknown += sym.symbolize(module, {offset})[0].empty();
      kept[static_cast<std::size_t>(b)].push_back(ms_since(t0));
    }
  }
  std::printf("%s +%s, medians of %d rounds (ms per batch of one address)\n", module.c_str(), hex, reps);
  std::printf("batch  tool spawned per batch  one tool kept running\n");
  double total_spawned = 0, total_kept = 0;
  for (int b = 0; b < batches; ++b) {
    const double s = median(spawned[static_cast<std::size_t>(b)]), k = median(kept[static_cast<std::size_t>(b)]);
    total_spawned += s;
    total_kept += k;
    std::printf("%5d  %22.2f  %21.2f\n", b + 1, s, k);
  }
  std::printf("total  %22.2f  %21.2f\n", total_spawned, total_kept);
  if (unknown != 0) std::printf("(%zu answers without a frame: no debug information at that address?)\n", unknown);
  return 0;
}
