// Each C++ rule on small snippets: what it finds in a training loop, and what it must leave alone.
#include <gtest/gtest.h>

#include "analysis_test_support.h"

namespace synclint::cxx::test {
namespace {

// A CUDA tensor `x`, a host tensor `h`, a step loop around `BODY`.
std::string loop(const std::string& body) {
  return "#include \"torch.h\"\n"
         "void train(int steps) {\n"
         "  auto x = torch::randn(8, torch::TensorOptions().device(torch::kCUDA));\n"
         "  auto h = torch::zeros(8);\n"
         "  for (int step = 0; step < steps; ++step) {\n" +
         body +
         "\n  }\n"
         "}\n";
}

std::size_t count(const std::string& body, const std::string& rule) { return of_rule(analyze(loop(body)), rule).size(); }

TEST(CxxRules, Sync001ItemOnGpuTensorInLoop) {
  auto f = of_rule(analyze(loop("    float v = x.sum().item<float>();")), "SYNC001");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].severity, Severity::Warning);
  EXPECT_EQ(f[0].confidence, Confidence::High);
  EXPECT_EQ(f[0].range.begin.line, 6u);
  EXPECT_EQ(f[0].range.begin.column, 15u);
  EXPECT_NE(f[0].message.find("every step of the loop at train.cpp:5"), std::string::npos) << f[0].message;
  EXPECT_EQ(f[0].function, "train");
}

TEST(CxxRules, Sync001InConditionAndScalarConversionIsOneFinding) {
  EXPECT_EQ(count("    if (x.max().item<float>() > 1e4) break;", "SYNC001"), 1u);
  EXPECT_EQ(count("    double d = x.sum().item().toDouble();", "SYNC001"), 1u);
}

TEST(CxxRules, Sync001NotOnHostTensor) {
  EXPECT_EQ(count("    float v = h.sum().item<float>();", "SYNC001"), 0u);
  EXPECT_EQ(count("    float v = x.cpu().item<float>();", "SYNC001"), 0u);
}

TEST(CxxRules, Sync003CopiesToHost) {
  EXPECT_EQ(count("    auto c = x.cpu();", "SYNC003"), 1u);
  EXPECT_EQ(count("    auto c = x.to(torch::kCPU);", "SYNC003"), 1u);
  EXPECT_EQ(count("    auto c = x.to(torch::Device(\"cpu\"));", "SYNC003"), 1u);
  EXPECT_EQ(count("    float* p = x.cpu().data_ptr<float>();", "SYNC003"), 1u);
  EXPECT_EQ(count("    h.copy_(x);", "SYNC003"), 1u);
}

TEST(CxxRules, Sync003Negatives) {
  EXPECT_EQ(count("    auto c = h.cpu();", "SYNC003"), 0u);
  EXPECT_EQ(count("    auto c = x.to(torch::kCPU, /*non_blocking=*/true);", "SYNC003"), 0u);
  EXPECT_EQ(count("    auto c = x.to(torch::kFloat);", "SYNC003"), 0u);
  EXPECT_EQ(count("    x.copy_(h);", "SYNC003"), 0u);
}

TEST(CxxRules, Sync004IsNonzero) {
  EXPECT_EQ(count("    if (x.is_nonzero()) break;", "SYNC004"), 1u);
  EXPECT_EQ(count("    if (h.is_nonzero()) break;", "SYNC004"), 0u);
}

TEST(CxxRules, Sync005Formatting) {
  auto f = of_rule(analyze(loop("    std::cout << \"loss \" << x;")), "SYNC005");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].range.begin.column, 29u);  // the tensor operand
  EXPECT_EQ(count("    at::print(x);", "SYNC005"), 1u);
  EXPECT_EQ(count("    std::cout << \"loss \" << h;", "SYNC005"), 0u);
  EXPECT_EQ(count("    std::cout << \"step\";", "SYNC005"), 0u);
}

TEST(CxxRules, Sync007ExplicitSynchronize) {
  EXPECT_EQ(count("    torch::cuda::synchronize();", "SYNC007"), 1u);
  EXPECT_EQ(count("    cudaDeviceSynchronize();", "SYNC007"), 1u);
  EXPECT_EQ(count("    c10::cuda::CUDAStream s; s.synchronize();", "SYNC007"), 1u);
  EXPECT_EQ(count("    at::cuda::CUDAEvent e; e.synchronize();", "SYNC007"), 1u);
  EXPECT_EQ(count("    c10::cuda::device_synchronize();", "SYNC007"), 1u);
  EXPECT_EQ(count("    void* p; cudaMalloc(&p, 4); cudaMemcpy(p, p, 4, 1);", "SYNC007"), 2u);
  EXPECT_EQ(count("    c10::cuda::CUDAStream s; s.query(); at::cuda::CUDAEvent e; e.record();", "SYNC007"), 0u);
  // Outside any loop it runs once.
  EXPECT_EQ(of_rule(analyze("#include \"torch.h\"\nvoid f() { torch::cuda::synchronize(); }\n"), "SYNC007").size(), 0u);
}

TEST(CxxRules, Sync008DataDependentShapes) {
  EXPECT_EQ(count("    auto n = x.nonzero();", "SYNC008"), 1u);
  EXPECT_EQ(count("    auto n = torch::where(x > 0.0);", "SYNC008"), 1u);
  EXPECT_EQ(count("    auto n = x.index({x > 0.0});", "SYNC008"), 1u);
  EXPECT_EQ(count("    auto m = x > 0.0; x.index_put_({m}, x);", "SYNC008"), 1u);
}

TEST(CxxRules, Sync008Negatives) {
  EXPECT_EQ(count("    auto n = torch::where(x > 0.0, x, x);", "SYNC008"), 0u);
  EXPECT_EQ(count("    auto n = h.nonzero();", "SYNC008"), 0u);
  EXPECT_EQ(count("    auto n = x.index({x});", "SYNC008"), 0u);
  EXPECT_EQ(count("    x.index_put_({x > 0.0}, c10::Scalar());", "SYNC008"), 0u);
}

TEST(CxxRules, Sync009LibraryCalls) {
  EXPECT_EQ(count("    if (torch::equal(x, x)) break;", "SYNC009"), 1u);
  EXPECT_EQ(count("    if (x.allclose(x)) break;", "SYNC009"), 1u);
  EXPECT_EQ(count("    if (torch::equal(h, h)) break;", "SYNC009"), 0u);
}

TEST(CxxRules, Sync011BlockingHostToDevice) {
  EXPECT_EQ(count("    auto d = h.to(torch::kCUDA);", "SYNC011"), 1u);
  EXPECT_EQ(count("    auto d = h.cuda();", "SYNC011"), 1u);
  EXPECT_EQ(count("    auto d = h.to(torch::kCUDA, /*non_blocking=*/true);", "SYNC011"), 0u);
  EXPECT_EQ(count("    auto d = x.to(torch::kCUDA);", "SYNC011"), 0u);
}

TEST(CxxRules, Sync011FixAsksForTheAsynchronousCopy) {
  auto f = of_rule(analyze(loop("    auto d = h.to(torch::kCUDA);")), "SYNC011");
  ASSERT_EQ(f.size(), 1u);
  ASSERT_EQ(f[0].edits.size(), 1u);
  EXPECT_EQ(f[0].edits[0].replacement, ", /*non_blocking=*/true");
  // Inserted before the closing parenthesis of `h.to(torch::kCUDA)` (line 6, column 31).
  EXPECT_EQ(f[0].edits[0].range.begin.line, 6u);
  EXPECT_EQ(f[0].edits[0].range.begin.column, 31u);
  EXPECT_EQ(f[0].edits[0].range.end.column, 31u);
  // No edit where the call takes no such argument, or where the argument is written already.
  EXPECT_TRUE(of_rule(analyze(loop("    auto d = h.cuda();")), "SYNC011").at(0).edits.empty());
  EXPECT_TRUE(of_rule(analyze(loop("    auto d = h.to(torch::kCUDA, false);")), "SYNC011").at(0).edits.empty());
}

TEST(CxxRules, Sync012UnsynchronizedTiming) {
  std::string timed = "    auto t0 = std::chrono::steady_clock::now();\n    auto y = torch::relu(x);\n"
                      "    auto t1 = std::chrono::steady_clock::now();\n    double ms = (t1 - t0).count();";
  auto f = of_rule(analyze(loop(timed)), "SYNC012");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_NE(f[0].message.find("queued since train.cpp:6"), std::string::npos) << f[0].message;
  std::string synced = "    auto t0 = std::chrono::steady_clock::now();\n    auto y = torch::relu(x);\n"
                       "    torch::cuda::synchronize();\n    auto t1 = std::chrono::steady_clock::now();\n"
                       "    double ms = (t1 - t0).count();";
  EXPECT_EQ(count(synced, "SYNC012"), 0u);
  std::string host_only = "    auto t0 = std::chrono::steady_clock::now();\n    auto y = torch::relu(h);\n"
                          "    auto t1 = std::chrono::steady_clock::now();\n    double ms = (t1 - t0).count();";
  EXPECT_EQ(count(host_only, "SYNC012"), 0u);
}

TEST(CxxRules, DeclaredApisFromConfiguration) {
  Catalog catalog = Catalog::builtin();
  catalog.add_api("SYNC001", Language::Cxx, "functions", "mylib::to_float");
  std::string head = "#include \"torch.h\"\nnamespace mylib { float to_float(const torch::Tensor&); }\n";
  std::string gpu = head + "void f(int n) { auto x = torch::zeros(1).cuda(); for (int i = 0; i < n; ++i) mylib::to_float(x); }\n";
  std::string host = head + "void f(int n) { auto x = torch::zeros(1); for (int i = 0; i < n; ++i) mylib::to_float(x); }\n";
  auto f = of_rule(analyze(gpu, false, &catalog), "SYNC001");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_NE(f[0].message.find("declared to synchronize"), std::string::npos) << f[0].message;
  EXPECT_TRUE(of_rule(analyze(host, false, &catalog), "SYNC001").empty());
  EXPECT_TRUE(of_rule(analyze(gpu), "SYNC001").empty());  // not declared: not an API
}

}  // namespace
}  // namespace synclint::cxx::test
