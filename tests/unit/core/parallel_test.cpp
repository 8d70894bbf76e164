// parallel_for on the threads it keeps between loops: every index once, loops from several threads at
// once, a loop inside a loop, and an exception thrown on any thread.
#include "core/parallel.h"

#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace synclint {
namespace {

// Runs `loops` loops of n indexes on `jobs` threads; true when each index ran once in each loop and the
// worker numbers stayed below the thread count.
bool loops_run_each_index_once(int loops, std::size_t n, unsigned jobs) {
  for (int l = 0; l < loops; ++l) {
    std::vector<std::atomic<int>> runs(n);
    std::atomic<bool> worker_ok{true};
    parallel_for(n, jobs, [&](std::size_t i, unsigned worker) {
      runs[i].fetch_add(1);
      if (worker >= jobs) worker_ok = false;
    });
    for (const auto& r : runs)
      if (r.load() != 1) return false;
    if (!worker_ok) return false;
  }
  return true;
}

TEST(ParallelFor, EachIndexRunsOnceInEveryLoop) {
  EXPECT_TRUE(loops_run_each_index_once(200, 1000, 4));
  EXPECT_TRUE(loops_run_each_index_once(50, 3, 8));  // fewer indexes than threads
  EXPECT_TRUE(loops_run_each_index_once(5, 100, 1));
}

TEST(ParallelFor, LoopsFromSeveralThreadsAtOnce) {
  std::atomic<int> good{0};
  std::vector<std::thread> callers;
  for (int t = 0; t < 4; ++t)
    callers.emplace_back([&] {
      if (loops_run_each_index_once(100, 257, 3)) ++good;
    });
  for (std::thread& t : callers) t.join();
  EXPECT_EQ(good.load(), 4);
}

TEST(ParallelFor, ALoopInsideALoop) {
  std::atomic<int> total{0};
  parallel_for(8, 4, [&](std::size_t, unsigned) {
    parallel_for(16, 3, [&](std::size_t, unsigned) { total.fetch_add(1); });
  });
  EXPECT_EQ(total.load(), 8 * 16);
}

// Every index throws, so that the exception comes from the pool's threads as well as the caller's: it is
// thrown again on the calling thread (an exception leaving a thread would end the process), the indexes
// after it do not run, and the threads serve the next loop.
TEST(ParallelFor, AnExceptionOnAnyThreadIsThrownToTheCaller) {
  for (int l = 0; l < 50; ++l) {
    std::atomic<int> ran{0};
    EXPECT_THROW(parallel_for(1000, 4,
                              [&](std::size_t i, unsigned) {
                                ran.fetch_add(1);
                                throw std::runtime_error("index " + std::to_string(i));
                              }),
                 std::runtime_error);
    EXPECT_LE(ran.load(), 4);  // one index per thread at most
  }
  // One thread other than the caller's throws a type of its own.
  struct Stopped {};
  std::atomic<bool> thrown{false};
  EXPECT_THROW(parallel_for(400, 3,
                            [&](std::size_t, unsigned worker) {
                              if (worker == 0) {
                                while (!thrown) std::this_thread::yield();
                                return;
                              }
                              if (!thrown.exchange(true)) throw Stopped{};
                            }),
               Stopped);
  EXPECT_TRUE(loops_run_each_index_once(20, 500, 4));
}

}  // namespace
}  // namespace synclint
