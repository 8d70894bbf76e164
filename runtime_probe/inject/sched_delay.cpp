#include "sched_delay.h"

#include <fcntl.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <charconv>
#include <cstdio>
#include <cstdint>

namespace synclint::probe::inject {

std::optional<std::uint64_t> parse_run_delay(std::string_view s) {
  auto skip_spaces = [&] {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  };
  auto number = [&]() -> std::optional<std::uint64_t> {
    skip_spaces();
    std::uint64_t v = 0;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc{} || end == s.data()) return std::nullopt;
    s.remove_prefix(static_cast<std::size_t>(end - s.data()));
    return v;
  };
  if (!number()) return std::nullopt;
  return number();
}

namespace {
std::atomic<bool> g_unavailable{false};

// The thread's own schedstat file, open from its first reading on (/proc/thread-self resolves to the thread
// that opened it). Plain thread-local data, valid until the thread's very end (the main thread's exit
// handlers read it after the C++ thread-local destructors have run); a thread that exits has it closed by
// the destructor of a pthread key.
struct ThreadFile {
  int fd = -1;
  bool tried = false;
};
thread_local ThreadFile t_file;
pthread_key_t g_close_key;
pthread_once_t g_close_key_once = PTHREAD_ONCE_INIT;

void close_at_thread_exit(void* fd_plus_one) { close(static_cast<int>(reinterpret_cast<std::intptr_t>(fd_plus_one)) - 1); }
}  // namespace

bool run_delay_unavailable() { return g_unavailable.load(std::memory_order_relaxed); }

std::uint64_t thread_run_delay_ns() {
  if (!t_file.tried) {
    t_file.tried = true;
    if (!g_unavailable.load(std::memory_order_relaxed)) {
      t_file.fd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
      if (t_file.fd < 0) {  // kernels before 3.17 have no /proc/thread-self
        char path[64];
        std::snprintf(path, sizeof path, "/proc/self/task/%ld/schedstat", static_cast<long>(syscall(SYS_gettid)));
        t_file.fd = open(path, O_RDONLY | O_CLOEXEC);
      }
      if (t_file.fd < 0) {
        g_unavailable.store(true, std::memory_order_relaxed);
      } else {
        pthread_once(&g_close_key_once, [] { pthread_key_create(&g_close_key, close_at_thread_exit); });
        pthread_setspecific(g_close_key, reinterpret_cast<void*>(static_cast<std::intptr_t>(t_file.fd) + 1));
      }
    }
  }
  if (t_file.fd < 0) return kNoRunDelay;
  char buf[96];
  ssize_t n = pread(t_file.fd, buf, sizeof buf, 0);
  if (n <= 0) return kNoRunDelay;
  auto v = parse_run_delay(std::string_view(buf, static_cast<std::size_t>(n)));
  return v ? *v : kNoRunDelay;
}

}  // namespace synclint::probe::inject
