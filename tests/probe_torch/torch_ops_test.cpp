// The shim's RecordFunction hook on CPU LibTorch: the same operators run on a GPU tensor, where the probe
// puts the CUDA calls of the read inside each timed interval.
#include "torch_ops.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <atomic>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

namespace {

std::atomic<std::uint64_t> g_now{0};
std::uint64_t test_clock() { return g_now.fetch_add(10) + 10; }  // every read of the clock 10 ns later

std::mutex g_mu;
std::vector<std::pair<std::uint64_t, std::uint64_t>> g_timed;
void sink(std::uint64_t start, std::uint64_t end) {
  std::lock_guard lock(g_mu);
  g_timed.emplace_back(start, end);
}

std::size_t timed() {
  std::lock_guard lock(g_mu);
  return g_timed.size();
}

class TorchOps : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { ASSERT_EQ(synclint_torch_ops_start(test_clock, sink), 1); }
  void SetUp() override {
    std::lock_guard lock(g_mu);
    g_timed.clear();
  }
  void TearDown() override { synclint_torch_ops_enable(0); }
};

TEST_F(TorchOps, EachItemIsOneTimedReadAroundItsInnerOperator) {
  synclint_torch_ops_enable(1);
  const torch::Tensor x = torch::arange(10, torch::kFloat32);
  float total = 0;
  for (int i = 0; i < 5; ++i) total += x.sum().item<float>();  // aten::item runs aten::_local_scalar_dense
  EXPECT_FLOAT_EQ(total, 225.0f);
  std::lock_guard lock(g_mu);
  ASSERT_EQ(g_timed.size(), 5u);
  for (const auto& [start, end] : g_timed) EXPECT_GT(end, start);
}

TEST_F(TorchOps, OperatorsThatReadNothingAreNotTimed) {
  synclint_torch_ops_enable(1);
  torch::Tensor x = torch::ones({4, 4});
  for (int i = 0; i < 3; ++i) x = torch::relu(x.matmul(x) + 1);  // `+ 1` converts a wrapped scalar
  EXPECT_TRUE(x.to(torch::kFloat64).defined());
  EXPECT_EQ(timed(), 0u);
  EXPECT_TRUE(torch::ones({1}).is_nonzero());  // `if (t)`: a read
  EXPECT_EQ(timed(), 1u);
}

TEST_F(TorchOps, NothingIsTimedWhileOff) {
  synclint_torch_ops_enable(1);
  synclint_torch_ops_enable(0);
  const torch::Tensor x = torch::ones({3});
  EXPECT_FLOAT_EQ(x.sum().item<float>(), 3.0f);
  EXPECT_EQ(timed(), 0u);
  synclint_torch_ops_enable(1);
  EXPECT_FLOAT_EQ(x.sum().item<float>(), 3.0f);
  EXPECT_EQ(timed(), 1u);
}

TEST_F(TorchOps, ReadsOnOtherThreadsAreTimedOnTheirOwn) {
  synclint_torch_ops_enable(1);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([] {
      const torch::Tensor x = torch::ones({8});
      for (int i = 0; i < 10; ++i) EXPECT_FLOAT_EQ(x.sum().item<float>(), 8.0f);
    });
  for (auto& th : threads) th.join();
  EXPECT_EQ(timed(), 40u);
}

TEST(TorchOpsNames, TheReadOperators) {
  for (const char* read : {"aten::item", "aten::_local_scalar_dense", "aten::is_nonzero"})
    EXPECT_EQ(synclint_torch_ops_is_read(read), 1) << read;
  for (const char* other : {"aten::add", "aten::sum", "aten::to", "aten::_to_copy", "aten::copy_", "aten::nonzero", "", "aten::item_"})
    EXPECT_EQ(synclint_torch_ops_is_read(other), 0) << other;
  EXPECT_EQ(synclint_torch_ops_is_read(nullptr), 0);
}

}  // namespace
