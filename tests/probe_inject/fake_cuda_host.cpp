// Plays a small training loop to the injected probe through the stand-in CUPTI (fake_cupti.cpp), without a
// GPU: per step, a kernel launch (with a kernel record on the "GPU" that runs 300 us from the launch) and a
// read of its result (a device-to-host async copy, then a stream synchronize that spins until the kernel has
// ended). Then the callbacks a switch of CUPTI's callbacks can leave: an EXIT whose ENTER was not seen, and
// callbacks without correlation data. Prints its pid first.
//
//   fake_cuda_host PROBE_LIBRARY FAKE_CUPTI_LIBRARY STEPS [launcher|term|fault]
//
// With `launcher`, a second thread launches kernels (without GPU records) all the while, as PyTorch's
// autograd thread does beside the Python thread. FAKE_HOST_LAUNCH_US sets how long each step's launch call
// takes between its ENTER and EXIT (default 5 us; the kernel still ends 300 us after the step began);
// FAKE_HOST_READ_EVERY=K reads the result in every K-th step only (from the first); the other steps spend
// the kernel's time on host work instead. FAKE_HOST_GRAPH=1 launches each step's work as a CUDA graph
// (cudaGraphLaunch) of three kernels, 10-100, 110-200 and 210-300 us after the step began, whose records
// all carry the launch's correlation id. With `term`, the program is killed by SIGTERM after its
// steps (default action), as a job scheduler would. With `fault`, it dies of SIGSEGV after its steps.
// Built with SYNCLINT_FAKE_HOST_TORCH (fake_cuda_torch_host, linked with LibTorch), each read runs inside
// a LibTorch RecordFunction named aten::item, as `.item()` does, with 20 us of host work before its CUDA
// calls and 10 us after them. FAKE_HOST_HOG=1 pins the program to the CPU it started on and spins another
// thread there all the while, as on an overloaded host: each spinning sync is preempted about half the time.
#include <cuda_runtime_api.h>
#include <cupti.h>
#include <dlfcn.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <thread>

#include "fake_play.h"
#include "inject_driver.h"

#ifdef SYNCLINT_FAKE_HOST_TORCH
#include <ATen/record_function.h>

#include <vector>
#endif

namespace {

using namespace synclint::probe::testing;

// One API call: ENTER, the call's own work (spinning until `until`), EXIT. Returns its correlation id.
__attribute__((noinline)) uint32_t api(CUpti_CallbackId cbid, uint64_t until, const void* params = nullptr) {
  const uint32_t c = ++g_correlation;
  uint64_t data = 0;
  g_call(cbid, CUPTI_API_ENTER, c, &data, params);
  spin_until(until);
  g_call(cbid, CUPTI_API_EXIT, c, &data, params);
  return c;
}

uint64_t g_kernel_end = 0;

__attribute__((noinline)) void train_step() {
  const uint64_t t = now_ns();
  static const cudaLaunchKernel_v7000_params launch{reinterpret_cast<const void*>(&train_step), dim3(64), dim3(256),
                                                    nullptr, 0, nullptr};
  static const uint64_t launch_ns = [] {
    const char* us = std::getenv("FAKE_HOST_LAUNCH_US");
    return (us != nullptr ? std::strtoull(us, nullptr, 10) : 5) * 1'000;
  }();
  static const bool graph = std::getenv("FAKE_HOST_GRAPH") != nullptr;
  g_kernel_end = t + 300'000;
  if (graph) {
    static int exec = 0;  // the executable graph's handle
    static const cudaGraphLaunch_v10000_params graph_launch{reinterpret_cast<cudaGraphExec_t>(&exec), nullptr};
    const uint32_t c = api(CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000, t + launch_ns, &graph_launch);
    for (uint64_t k = 0; k < 3; ++k) g_kernel(t + 10'000 + k * 100'000, t + (k + 1) * 100'000, c);
    return;
  }
  const uint32_t c = api(CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, t + launch_ns, &launch);
  g_kernel(t + 10'000, g_kernel_end, c);
}

__attribute__((noinline)) void read_loss() {
  static float host_value = 0;
#ifdef SYNCLINT_FAKE_HOST_TORCH
  RECORD_FUNCTION("aten::item", std::vector<c10::IValue>());
  spin_until(now_ns() + 20'000);
#endif
  cudaMemcpyAsync_v3020_params copy{&host_value, nullptr, sizeof host_value, cudaMemcpyDeviceToHost, nullptr};
  api(CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020, now_ns() + 3'000, &copy);
  api(CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020, g_kernel_end + 2'000);  // the read
#ifdef SYNCLINT_FAKE_HOST_TORCH
  spin_until(now_ns() + 10'000);
#endif
}

// What a switch of the callbacks can leave behind.
__attribute__((noinline)) void switch_debris() {
  uint64_t unseen = 0;  // an EXIT whose ENTER was not delivered: no start recorded
  g_call(CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, CUPTI_API_EXIT, ++g_correlation, &unseen, nullptr);
  g_call(CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, CUPTI_API_ENTER, ++g_correlation, nullptr, nullptr);
  g_call(CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020, CUPTI_API_EXIT, ++g_correlation, nullptr, nullptr);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: fake_cuda_host PROBE_LIBRARY FAKE_CUPTI_LIBRARY STEPS\n");
    return 2;
  }
  const int rc = synclint::probe::testing::inject_probe(argv[1]);
  if (rc == synclint::probe::testing::kCannotOpen) return 3;
  if (rc != 1) return 4;
  if (!bind_stand_in(argv[2])) return 5;
  const int steps = std::atoi(argv[3]);
  std::atomic<bool> done{false};
  std::thread launcher;
  if (argc > 4 && std::strcmp(argv[4], "launcher") == 0)
    launcher = std::thread([&] {
      while (!done.load()) api(CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, now_ns() + 20'000);
    });
  std::thread hog;
  if (std::getenv("FAKE_HOST_HOG") != nullptr) {
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(sched_getcpu(), &one);
    if (pthread_setaffinity_np(pthread_self(), sizeof one, &one) != 0) return 7;
    hog = std::thread([&] {
      pthread_setaffinity_np(pthread_self(), sizeof one, &one);
      while (!done.load(std::memory_order_relaxed)) {
      }
    });
  }
  const char* every = std::getenv("FAKE_HOST_READ_EVERY");
  const int read_every = every != nullptr && std::atoi(every) > 0 ? std::atoi(every) : 1;
  for (int i = 0; i < steps; ++i) {
    train_step();
    if (i % read_every == 0) read_loss();
    else spin_until(g_kernel_end);  // host work as long as the step's kernel, without a CUDA call
  }
  done.store(true);
  if (launcher.joinable()) launcher.join();
  if (hog.joinable()) hog.join();
  if (argc > 4 && std::strcmp(argv[4], "term") == 0) {
    raise(SIGTERM);
    pause();  // the probe's handler writes the report, then the default action ends the process
  }
  if (argc > 4 && std::strcmp(argv[4], "fault") == 0) raise(SIGSEGV);
  switch_debris();
  return 0;
}
