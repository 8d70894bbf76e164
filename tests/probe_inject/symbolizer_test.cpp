#include "symbolizer.h"

#include "native_site.h"

#include <dlfcn.h>
#include <link.h>

#include <gtest/gtest.h>

namespace synclint::probe::inject {
namespace {

TEST(ParseAddr2line, InlineChainsUnknownsAndDiscriminators) {
  const char* out =
      "0x0000000000001139\n"
      "inner_helper(int)\n"
      "/src/helper.h:12\n"
      "train_step(Model&)\n"
      "/src/train.cpp:42 (discriminator 3)\n"
      "0x0000000000002000\n"
      "??\n"
      "??:0\n"
      "0x0000000000003000\n"
      "main\n"
      "/src/main.cpp:?\n";
  auto r = parse_addr2line(out, 3);
  ASSERT_EQ(r.size(), 3u);
  ASSERT_EQ(r[0].size(), 2u);
  EXPECT_EQ(r[0][0].function, "inner_helper(int)");
  EXPECT_EQ(r[0][0].file, "/src/helper.h");
  EXPECT_EQ(r[0][0].line, 12u);
  EXPECT_EQ(r[0][1].function, "train_step(Model&)");
  EXPECT_EQ(r[0][1].file, "/src/train.cpp");
  EXPECT_EQ(r[0][1].line, 42u);
  EXPECT_TRUE(r[1].empty());
  ASSERT_EQ(r[2].size(), 1u);
  EXPECT_EQ(r[2][0].file, "/src/main.cpp");
  EXPECT_EQ(r[2][0].line, 0u);
}

TEST(ParseAddr2line, MissingOutputGivesEmptyChains) {
  auto r = parse_addr2line("", 2);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_TRUE(r[0].empty());
  EXPECT_TRUE(r[1].empty());
}

TEST(ParseLlvmSymbolizer, ColumnsAndBlankLineSeparators) {
  const char* out =
      "inner_helper(int)\n/src/helper.h:12:7\ntrain_step(Model&)\n/src/train.cpp:42:3\n\n"
      "??\n??:0:0\n\n";
  auto r = parse_llvm_symbolizer(out, 2);
  ASSERT_EQ(r.size(), 2u);
  ASSERT_EQ(r[0].size(), 2u);
  EXPECT_EQ(r[0][1].file, "/src/train.cpp");
  EXPECT_EQ(r[0][1].line, 42u);
  EXPECT_TRUE(r[1].empty());
}

TEST(PickFrame, InnermostOutsideSkippedFilesElseOutermost) {
  std::vector<SourceFrame> chain = {{"at::Tensor::item", "/x/torch/include/ATen/core/TensorBody.h", 10},
                                    {"step", "/src/train.cpp", 42}};
  SkipList skip({"/torch/include/"});
  EXPECT_EQ(pick_frame(chain, skip)->line, 42u);
  std::vector<SourceFrame> all_skipped = {{"a", "/x/torch/include/a.h", 1}, {"b", "/x/torch/include/b.h", 2}};
  EXPECT_EQ(pick_frame(all_skipped, skip)->line, 2u);
  EXPECT_EQ(pick_frame({}, skip), nullptr);
}

__attribute__((noinline)) int marker_function(int x) { return x * 3 + 1; }  // symbolized below
constexpr unsigned kMarkerLine = __LINE__ - 1;

TEST(Symbolizer, Addr2lineResolvesThisTestsOwnCode) {
  unsetenv("SYNCLINT_PROBE_SYMBOLIZER");
  Symbolizer sym;
  // binutils comes with the compiler that built this test: the tool must be there.
  ASSERT_NE(sym.tool(), Symbolizer::Tool::None) << "neither addr2line nor llvm-symbolizer on PATH";
  Dl_info info{};
  link_map* lm = nullptr;
  auto addr = reinterpret_cast<std::uintptr_t>(&marker_function);
  ASSERT_NE(dladdr1(reinterpret_cast<void*>(addr), &info, reinterpret_cast<void**>(&lm), RTLD_DL_LINKMAP), 0);
  char exe[4096];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  ASSERT_GT(n, 0);
  exe[n] = '\0';
  auto chains = sym.symbolize(exe, {addr - lm->l_addr});
  ASSERT_EQ(chains.size(), 1u);
  ASSERT_FALSE(chains[0].empty());
  EXPECT_NE(chains[0].back().file.find("symbolizer_test.cpp"), std::string::npos) << chains[0].back().file;
  EXPECT_EQ(chains[0].back().line, kMarkerLine);
  EXPECT_NE(chains[0].back().function.find("marker_function"), std::string::npos);
}

TEST(Symbolizer, NoneWhenForced) {
  setenv("SYNCLINT_PROBE_SYMBOLIZER", "none", 1);
  Symbolizer sym;
  unsetenv("SYNCLINT_PROBE_SYMBOLIZER");
  EXPECT_EQ(sym.tool(), Symbolizer::Tool::None);
  auto r = sym.symbolize("/bin/true", {0x10, 0x20});
  ASSERT_EQ(r.size(), 2u);
  EXPECT_TRUE(r[0].empty());
}

TEST(RunCapture, ReturnsStdoutAndStatus) {
  std::string out;
  EXPECT_TRUE(run_capture({"/bin/sh", "-c", "echo hello"}, out));
  EXPECT_EQ(out, "hello\n");
  std::string none;
  EXPECT_FALSE(run_capture({"/nonexistent/tool"}, none));
  EXPECT_TRUE(none.empty());
}

}  // namespace
}  // namespace synclint::probe::inject
