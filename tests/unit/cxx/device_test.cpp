// Device inference of the C++ front-end, seen through SYNC001 (`.item()`) findings and their confidence.
#include <gtest/gtest.h>

#include "analysis_test_support.h"

namespace synclint::cxx::test {
namespace {

// `setup` runs before a step loop whose body reads `t.item<float>()`.
std::vector<Finding> item_of(const std::string& setup, const std::string& extra = "") {
  return of_rule(analyze("#include \"torch.h\"\n" + extra + "void train(int steps) {\n" + setup +
                         "\n  for (int i = 0; i < steps; ++i) { float v = t.item<float>(); }\n}\n"),
                 "SYNC001");
}

TEST(CxxDevice, CudaFactoriesAndMoves) {
  EXPECT_EQ(item_of("  auto t = torch::zeros(4, torch::TensorOptions().device(torch::kCUDA));").size(), 1u);
  EXPECT_EQ(item_of("  auto t = torch::zeros(4).cuda();").size(), 1u);
  EXPECT_EQ(item_of("  torch::Device device(torch::kCUDA);\n  auto t = torch::zeros(4).to(device);").size(), 1u);
  EXPECT_EQ(item_of("  auto t = torch::zeros(4).to(torch::Device(\"cuda:0\"));").size(), 1u);
}

TEST(CxxDevice, ArithmeticOnDeviceTensors) {
  auto f = item_of("  auto a = torch::zeros(4).cuda();\n  auto t = torch::relu(a + a) * 2.0;");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].confidence, Confidence::High);
}

TEST(CxxDevice, MaybeCudaIsMediumConfidence) {
  auto f = item_of("  torch::Device device(torch::cuda::is_available() ? torch::kCUDA : torch::kCPU);\n"
                   "  auto t = torch::zeros(4).to(device);");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].confidence, Confidence::Medium);
  EXPECT_EQ(f[0].severity, Severity::Warning);
}

TEST(CxxDevice, HostTensorsAreClean) {
  EXPECT_TRUE(item_of("  auto t = torch::zeros(4);").empty());
  EXPECT_TRUE(item_of("  float buf[4];\n  auto t = torch::from_blob(buf, 4);").empty());
  EXPECT_TRUE(item_of("  auto t = torch::zeros(4).cuda().cpu();").empty());
  // Flow-sensitive: the value assigned last before the loop decides.
  EXPECT_TRUE(item_of("  auto t = torch::zeros(4).cuda();\n  t = torch::zeros(4);").empty());
  EXPECT_EQ(item_of("  auto t = torch::zeros(4);\n  t = torch::zeros(4).cuda();").size(), 1u);
}

TEST(CxxDevice, ModulesMovedToTheDeviceAndTheirOutputs) {
  auto f = item_of("  torch::nn::Linear model(4, 4);\n  model->to(torch::Device(torch::kCUDA));\n"
                   "  auto t = model(torch::zeros(4).cuda());");
  EXPECT_EQ(f.size(), 1u);
  EXPECT_TRUE(item_of("  torch::nn::Linear model(4, 4);\n  auto t = model->forward(torch::zeros(4));").empty());
}

TEST(CxxDevice, SummariesAcrossFunctions) {
  // A parameter takes its callers' arguments; a function its returns.
  std::string code = "#include \"torch.h\"\n"
                     "float read(const torch::Tensor& t) { return t.item<float>(); }\n"
                     "torch::Tensor make() { return torch::zeros(4).cuda(); }\n"
                     "void train() { for (int i = 0; i < 9; ++i) read(make()); }\n";
  EXPECT_EQ(of_rule(analyze(code), "SYNC001").size(), 1u);
  std::string host = "#include \"torch.h\"\n"
                     "float read(const torch::Tensor& t) { return t.item<float>(); }\n"
                     "void train() { for (int i = 0; i < 9; ++i) read(torch::zeros(4)); }\n";
  EXPECT_TRUE(of_rule(analyze(host), "SYNC001").empty());
}

TEST(CxxDevice, UnknownDeviceIsANoteOnlyWhereCudaAppears) {
  std::string code = "#include \"torch.h\"\n"
                     "void train(torch::Tensor t) { for (int i = 0; i < 9; ++i) t.item<float>(); }\n";
  EXPECT_TRUE(of_rule(analyze(code), "SYNC001").empty());  // the TU never names a CUDA device
  auto f = of_rule(analyze(code + "bool gpu() { return torch::cuda::is_available(); }\n"), "SYNC001");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].confidence, Confidence::Low);
  EXPECT_EQ(f[0].severity, Severity::Note);
  EXPECT_NE(f[0].message.find("its device is unknown here"), std::string::npos);
}

}  // namespace
}  // namespace synclint::cxx::test
