// What the probe adds to each blocking CUDA call to tell a preempted sync from a waiting one: a reading of
// the calling thread's run_delay (sched_delay.h) at the call's ENTER and one at its EXIT. Times
// thread_run_delay_ns() over N readings, medians of REPS rounds, in us per reading.
//
//   run_delay_read [N=200000] [REPS=9]
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "sched_delay.h"

using synclint::probe::inject::kNoRunDelay;
using synclint::probe::inject::thread_run_delay_ns;

int main(int argc, char** argv) {
  const long n = argc > 1 ? std::atol(argv[1]) : 200000;
  const int reps = argc > 2 ? std::atoi(argv[2]) : 9;
  if (n < 1 || reps < 1) {
    std::fprintf(stderr, "usage: run_delay_read [N>0] [REPS>0]\n");
    return 2;
  }
  if (thread_run_delay_ns() == kNoRunDelay) {
    std::fprintf(stderr, "run_delay_read: this kernel keeps no run_delay (no /proc/thread-self/schedstat)\n");
    return 2;
  }
  std::vector<double> per_read;
  std::uint64_t sink = 0;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    for (long i = 0; i < n; ++i) sink += thread_run_delay_ns();
    per_read.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() / n);
  }
  std::sort(per_read.begin(), per_read.end());
  std::printf("thread_run_delay_ns: %.3f us per reading (median of %d rounds of %ld; %.3f to %.3f)\n",
              per_read[per_read.size() / 2], reps, n, per_read.front(), per_read.back());
  return sink == 1 ? 1 : 0;
}
