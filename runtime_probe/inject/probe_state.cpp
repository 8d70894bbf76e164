#include "probe_state.h"

#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>

namespace synclint::probe::inject {

Probe* g = nullptr;
std::atomic<bool> g_recording{false};
std::atomic<bool> g_forked{false};
std::atomic<std::uint32_t> g_epoch{0};

std::uint64_t now_ns() {
  std::uint64_t t = 0;
  if (g != nullptr && g->cupti.get_timestamp != nullptr) g->cupti.get_timestamp(&t);
  return t;
}

double cpu_ms(int who) {
  rusage u{};
  getrusage(who, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) * 1e3 +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e3;
}

std::optional<std::uint64_t> clock_ns(clockid_t clock) {
  timespec t{};
  if (clock_gettime(clock, &t) != 0) return std::nullopt;
  return static_cast<std::uint64_t>(t.tv_sec) * 1'000'000'000u + static_cast<std::uint64_t>(t.tv_nsec);
}

double ms_since_start(std::uint64_t ns) { return ns > g->start_ns ? static_cast<double>(ns - g->start_ns) / 1e6 : 0.0; }

void wake_watcher(char c) {
  if (g != nullptr && g->wake[1] >= 0) {
    ssize_t r = write(g->wake[1], &c, 1);
    (void)r;
  }
}

void report_error(const std::string& what) { std::fprintf(stderr, "synclint probe: %s\n", what.c_str()); }

}  // namespace synclint::probe::inject
