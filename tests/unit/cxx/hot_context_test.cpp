// Hot context of the C++ front-end: loops, lambdas, call chains, forward(), guards, parameter loops.
#include <gtest/gtest.h>

#include "analysis_test_support.h"

namespace synclint::cxx::test {
namespace {

constexpr const char* kHead = "#include \"torch.h\"\n";

std::vector<Finding> syncs(const std::string& code, bool all = false) {
  return of_rule(analyze(kHead + code, all), "SYNC007");
}

TEST(CxxHotContext, AllLoopKinds) {
  EXPECT_EQ(syncs("void f(int n) { while (n--) torch::cuda::synchronize(); }").size(), 1u);
  EXPECT_EQ(syncs("void f(int n) { do { torch::cuda::synchronize(); } while (n--); }").size(), 1u);
  EXPECT_EQ(syncs("void f(std::vector<int> v) { for (int x : v) torch::cuda::synchronize(); }").size(), 1u);
}

TEST(CxxHotContext, ColdCodeOnlyWithAll) {
  std::string code = "void f() { torch::cuda::synchronize(); }";
  EXPECT_TRUE(syncs(code).empty());
  auto f = syncs(code, true);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].severity, Severity::Note);
  EXPECT_NE(f[0].message.find("in code that runs once"), std::string::npos);
}

TEST(CxxHotContext, CallChainFromALoop) {
  auto f = syncs("void sync_all() { torch::cuda::synchronize(); }\n"
                 "void step() { sync_all(); }\n"
                 "void train(int n) {\n  for (int i = 0; i < n; ++i)\n    step();\n}\n");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_NE(f[0].message.find("called from train.cpp:6 inside loop at train.cpp:5"), std::string::npos)
      << f[0].message;
  ASSERT_GE(f[0].related.size(), 3u);
  EXPECT_EQ(f[0].related[0].message, "called from train.cpp:3");
}

TEST(CxxHotContext, LambdaCalledInALoop) {
  EXPECT_EQ(syncs("void train(int n) {\n  auto s = [] { torch::cuda::synchronize(); };\n"
                  "  for (int i = 0; i < n; ++i) s();\n}\n").size(), 1u);
  EXPECT_TRUE(syncs("void train(int n) {\n  auto s = [] { torch::cuda::synchronize(); };\n  s();\n}\n").empty());
}

TEST(CxxHotContext, ModuleForwardIsPerStep) {
  auto f = syncs("struct Net : torch::nn::Module {\n"
                 "  torch::Tensor forward(torch::Tensor x) { torch::cuda::synchronize(); return x; }\n};\n");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_NE(f[0].message.find("`Net::forward` is a per-step callback"), std::string::npos) << f[0].message;
}

TEST(CxxHotContext, PeriodicGuardIsANote) {
  auto f = syncs("void train(int n) {\n  for (int step = 0; step < n; ++step) {\n"
                 "    if (step % 100 == 0) torch::cuda::synchronize();\n  }\n}\n");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].severity, Severity::Note);
  EXPECT_TRUE(f[0].periodic);
  EXPECT_NE(f[0].message.find("at each logging interval (periodic guard at train.cpp:4)"), std::string::npos)
      << f[0].message;
}

TEST(CxxHotContext, OnceOnlyGuardDrops) {
  EXPECT_TRUE(syncs("void train(int n) {\n  for (int step = 0; step < n; ++step) {\n"
                    "    if (step == 0) torch::cuda::synchronize();\n  }\n}\n").empty());
  // Only a comparison with a literal is once-only: `step == warmup` may hold on many steps.
  EXPECT_EQ(syncs("void train(int n, int warmup) {\n  for (int step = 0; step < n; ++step) {\n"
                  "    if (step == warmup) { torch::cuda::synchronize(); }\n  }\n}\n").size(), 1u);
}

TEST(CxxHotContext, EpochLoopIsHotToo) {
  auto f = syncs("void train(int e, int n) {\n  for (int epoch = 0; epoch < e; ++epoch) {\n"
                 "    for (int i = 0; i < n; ++i) {}\n    torch::cuda::synchronize();\n  }\n}\n");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].severity, Severity::Warning);
}

TEST(CxxHotContext, DoWhileZeroIsNotALoop) {
  EXPECT_TRUE(syncs("void f() { do { torch::cuda::synchronize(); } while (0); }").empty());
  EXPECT_TRUE(syncs("void f() { do { torch::cuda::synchronize(); } while (false); }").empty());
}

TEST(CxxHotContext, ParameterLoopInAHotLoopMultiplies) {
  auto f = of_rule(analyze(std::string(kHead) +
                           "void train(torch::nn::Linear model, int n) {\n  model->to(torch::Device(torch::kCUDA));\n"
                           "  for (int i = 0; i < n; ++i)\n"
                           "    for (auto& p : model->parameters()) p.grad().norm().item<float>();\n}\n"),
                   "SYNC001");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_NE(f[0].message.find("one read per parameter per step of the loop at train.cpp:4"), std::string::npos)
      << f[0].message;
}

}  // namespace
}  // namespace synclint::cxx::test
