// parallel_for on the threads it keeps between loops: every index once, loops from several threads at
// once, and a loop inside a loop.
#include "core/parallel.h"

#include <gtest/gtest.h>

#include <atomic>
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

}  // namespace
}  // namespace synclint
