#include "sched_delay.h"

#include <gtest/gtest.h>
#include <pthread.h>
#include <sched.h>

#include <atomic>
#include <chrono>
#include <thread>

namespace synclint::probe::inject {
namespace {

TEST(SchedDelay, ReadsTheSecondFieldOfASchedstatLine) {
  EXPECT_EQ(parse_run_delay("70516 53896 2\n"), 53896u);
  EXPECT_EQ(parse_run_delay("  1 18446744073709551614 7"), 18446744073709551614ull);
  EXPECT_EQ(parse_run_delay("5 0 0\n"), 0u);
}

TEST(SchedDelay, ALineWithoutTwoNumbersHasNoDelay) {
  EXPECT_FALSE(parse_run_delay(""));
  EXPECT_FALSE(parse_run_delay("70516"));
  EXPECT_FALSE(parse_run_delay("70516 x 2"));
  EXPECT_FALSE(parse_run_delay("-1 5 2"));
}

void pin_to(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  ASSERT_EQ(pthread_setaffinity_np(pthread_self(), sizeof set, &set), 0);
}

// A thread that spins while another spins on the same CPU waits for it about half the time: its
// run_delay grows by tens of ms over 80 ms, where alone it would hardly grow.
TEST(SchedDelay, ASpinningThreadSharingItsCpuWaitsForIt) {
  if (thread_run_delay_ns() == kNoRunDelay) GTEST_SKIP() << "no /proc/thread-self/schedstat on this kernel";
  cpu_set_t original;
  ASSERT_EQ(pthread_getaffinity_np(pthread_self(), sizeof original, &original), 0);
  const int cpu = sched_getcpu();
  ASSERT_GE(cpu, 0);
  pin_to(cpu);
  std::atomic<bool> stop{false}, started{false};
  std::thread hog([&] {
    pin_to(cpu);
    started = true;
    while (!stop.load(std::memory_order_relaxed)) {
    }
  });
  while (!started.load()) std::this_thread::yield();
  const std::uint64_t before = thread_run_delay_ns();
  const auto begin = std::chrono::steady_clock::now();
  while (std::chrono::steady_clock::now() < begin + std::chrono::milliseconds(80)) {
  }
  const std::uint64_t after = thread_run_delay_ns();
  const auto elapsed = static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - begin).count());
  stop = true;
  hog.join();
  pthread_setaffinity_np(pthread_self(), sizeof original, &original);
  ASSERT_NE(after, kNoRunDelay);
  EXPECT_GT(after - before, 10'000'000u) << "run_delay grew by " << (after - before) << " ns";
  EXPECT_LT(after - before, elapsed);
}

}  // namespace
}  // namespace synclint::probe::inject
