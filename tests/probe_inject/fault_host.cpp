// A program that ends badly, played to the injected probe through the stand-in CUPTI (fake_cupti.cpp): the
// probe fault-injection tests (injection_fault_test.cpp) run each mode probed and unprobed and compare.
//
//   fault_host PROBE_LIBRARY|- FAKE_CUPTI_LIBRARY STEPS MODE
//
// Each step launches a kernel that runs 300 us on the "GPU" and reads its result (a device-to-host copy,
// then a stream synchronize), at one site of this file. With `-` for the library the probe is not loaded
// (the unprobed run: the stand-in delivers no callbacks). Prints its pid first, then only lines that do not
// depend on the run. MODE, at half of STEPS unless said otherwise:
//   plain           the steps, exit 0;  exit3: the steps, exit status 3
//   fork-run        fork; the child plays STEPS/2 steps (which the probe must ignore) and exits 7
//   fork-exit       fork; the child calls exit(5) at once
//   fork-exec       fork; the child execs this program (plain, STEPS/2 steps): a new process of its own
//   exec            after the steps, exec /bin/sh printing a line and exiting 3
//   thread-exit     three threads launch work all the while; another calls exit(9) while the steps go on
//   segv            after the steps, raise SIGSEGV;  kill: after the steps, raise SIGKILL
//   term, int       a thread sends the process SIGTERM (SIGINT) while the steps go on
//   term-twice      the same SIGTERM sent twice, 1 ms apart (a signal to the process group, forwarded too)
//   int-handled     its own SIGINT handler, installed before the probe, sets a flag (as Python's does for
//                   KeyboardInterrupt); a thread sends SIGINT; the loop sees the flag, cleans up for 300 ms,
//                   puts the default action back and raises SIGINT again (as Python ends on an uncaught one)
//   group-term      the process sends SIGTERM to its whole process group (a job scheduler's way)
//   fsize           after the steps, RLIMIT_FSIZE of 1 byte (no file can be written), exit 0
//   fsize-ignored   the same with SIGXFSZ ignored
//   rmdir           remove SYNCLINT_PROBE_DIR with everything in it
//   threads64       64 threads play STEPS steps each, at once
//   init-twice      InitializeInjection called again, from another thread, at the start
// A mode that waits to be killed gives up after 20 s with exit status 99.
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include <cuda_runtime_api.h>

#include "fake_play.h"
#include "inject_driver.h"

namespace {

using namespace synclint::probe::testing;

__attribute__((noinline)) uint32_t api(CUpti_CallbackId cbid, uint64_t until, const void* params = nullptr) {
  const uint32_t c = ++g_correlation;
  uint64_t data = 0;
  g_call(cbid, CUPTI_API_ENTER, c, &data, params);
  spin_until(until);
  g_call(cbid, CUPTI_API_EXIT, c, &data, params);
  return c;
}

uint64_t launch(uint64_t kernel_us) {
  const uint64_t t = now_ns();
  const uint32_t c = api(CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, t + 5'000);
  g_kernel(t + 10'000, t + kernel_us * 1'000, c);
  return t + kernel_us * 1'000;
}

__attribute__((noinline)) void read_result(uint64_t kernel_end) {
  static thread_local float value = 0;
  cudaMemcpyAsync_v3020_params copy{&value, nullptr, sizeof value, cudaMemcpyDeviceToHost, nullptr};
  api(CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020, now_ns() + 3'000, &copy);
  api(CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020, kernel_end + 2'000);
}

void steps(int n) {
  for (int i = 0; i < n; ++i) read_result(launch(300));
}

// Steps until the process is ended from elsewhere; 99 after 20 s.
[[noreturn]] void steps_until_ended() {
  const uint64_t give_up = now_ns() + 20'000'000'000ull;
  while (now_ns() < give_up) steps(1);
  std::printf("not ended\n");
  std::exit(99);
}

int wait_child(pid_t child) {
  int status = 0;
  while (waitpid(child, &status, 0) < 0) {
  }
  if (WIFEXITED(status)) std::printf("child exited %d\n", WEXITSTATUS(status));
  else std::printf("child killed by signal %d\n", WTERMSIG(status));
  std::fflush(stdout);
  return status;
}

int fork_mode(const std::string& mode, char** argv, int n) {
  steps(n / 2);
  std::fflush(stdout);
  const pid_t child = fork();
  if (child < 0) return 98;
  if (child == 0) {
    if (mode == "fork-exit") std::exit(5);
    if (mode == "fork-exec") {
      const std::string half = std::to_string(n / 2);
      execl(argv[0], argv[0], argv[1], argv[2], half.c_str(), "plain", static_cast<char*>(nullptr));
      _exit(97);
    }
    steps(n / 2);  // fork-run: CUDA cannot be used after fork, and the probe records nothing here
    std::printf("child done\n");
    std::exit(7);
  }
  steps(n - n / 2);
  wait_child(child);
  return 0;
}

volatile sig_atomic_t g_interrupted = 0;

void on_sigint(int) { g_interrupted = 1; }

}  // namespace

int main(int argc, char** argv) {
  if (argc < 5) {
    std::fprintf(stderr, "usage: fault_host PROBE_LIBRARY|- FAKE_CUPTI_LIBRARY STEPS MODE\n");
    return 2;
  }
  const bool probed = std::strcmp(argv[1], "-") != 0;
  if (std::strcmp(argv[4], "int-handled") == 0) signal(SIGINT, on_sigint);
  if (!probed) {
    std::printf("%d\n", static_cast<int>(getpid()));
    std::fflush(stdout);
  } else if (inject_probe(argv[1]) != 1) {
    return 3;
  }
  if (!bind_stand_in(argv[2])) return 4;
  const int n = std::atoi(argv[3]);
  const std::string mode = argv[4];
  if (mode == "init-twice" && probed) {
    std::thread again([&] { inject_probe(argv[1]); });
    again.join();
  }
  if (mode.starts_with("fork-")) return fork_mode(mode, argv, n);
  if (mode == "threads64") {
    std::vector<std::thread> threads;
    for (int t = 0; t < 64; ++t) threads.emplace_back([n] { steps(n); });
    for (auto& t : threads) t.join();
    return 0;
  }
  if (mode == "thread-exit") {
    std::vector<std::thread> launchers;
    for (int t = 0; t < 3; ++t)
      launchers.emplace_back([] {
        for (;;) launch(20);
      });
    steps(n / 2);
    std::thread([] {
      std::fflush(stdout);
      std::exit(9);
    }).detach();
    steps_until_ended();
  }
  if (mode == "term" || mode == "int" || mode == "group-term" || mode == "term-twice") {
    steps(n / 2);
    const int sig = mode == "int" ? SIGINT : SIGTERM;
    std::thread([&] {
      kill(mode == "group-term" ? 0 : getpid(), sig);
      if (mode != "term-twice") return;
      usleep(1000);
      kill(getpid(), sig);
    }).detach();
    steps_until_ended();
  }
  if (mode == "int-handled") {
    steps(n / 2);
    std::thread([] { kill(getpid(), SIGINT); }).detach();
    const uint64_t give_up = now_ns() + 20'000'000'000ull;
    while (g_interrupted == 0 && now_ns() < give_up) steps(1);
    std::printf("interrupted: %s\n", g_interrupted != 0 ? "yes" : "no");
    std::fflush(stdout);
    usleep(300'000);
    signal(SIGINT, SIG_DFL);
    raise(SIGINT);
    return 99;
  }
  if (mode == "rmdir") {
    steps(n / 2);
    if (const char* dir = std::getenv("SYNCLINT_PROBE_DIR"); dir != nullptr && probed) std::filesystem::remove_all(dir);
    steps(n - n / 2);
    return 0;
  }
  steps(n);
  std::fflush(stdout);
  if (mode == "exec") {
    execl("/bin/sh", "sh", "-c", "echo exec ran; exit 3", static_cast<char*>(nullptr));
    return 97;
  }
  if (mode == "segv") raise(SIGSEGV);
  if (mode == "kill") raise(SIGKILL);
  if (mode == "fsize" || mode == "fsize-ignored") {
    if (mode == "fsize-ignored") signal(SIGXFSZ, SIG_IGN);
    rlimit limit{};
    getrlimit(RLIMIT_FSIZE, &limit);
    limit.rlim_cur = 1;
    setrlimit(RLIMIT_FSIZE, &limit);
  }
  if (mode == "exit3") return 3;
  return 0;
}
