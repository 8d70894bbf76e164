#include "symbolizer.h"

#include "native_site.h"

#include <dlfcn.h>
#include <link.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <fstream>

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

// This test binary and the file-relative offset of marker_function in it.
struct Marker {
  std::string exe;
  std::uint64_t offset = 0;
};
Marker marker() {
  Dl_info info{};
  link_map* lm = nullptr;
  auto addr = reinterpret_cast<std::uintptr_t>(&marker_function);
  Marker m;
  if (dladdr1(reinterpret_cast<void*>(addr), &info, reinterpret_cast<void**>(&lm), RTLD_DL_LINKMAP) == 0) return m;
  char exe[4096];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) return m;
  m.exe.assign(exe, static_cast<std::size_t>(n));
  m.offset = addr - lm->l_addr;
  return m;
}

// Each chain's outermost frame is marker_function's line in this file.
void expect_marker(const std::vector<std::vector<SourceFrame>>& chains, std::size_t n) {
  ASSERT_EQ(chains.size(), n);
  for (std::size_t i = 0; i < n; i += std::max<std::size_t>(1, n / 7)) {
    ASSERT_FALSE(chains[i].empty()) << "address " << i;
    EXPECT_NE(chains[i].back().file.find("symbolizer_test.cpp"), std::string::npos) << chains[i].back().file;
    EXPECT_EQ(chains[i].back().line, kMarkerLine);
    EXPECT_NE(chains[i].back().function.find("marker_function"), std::string::npos);
  }
}

TEST(Symbolizer, Addr2lineResolvesThisTestsOwnCode) {
  Symbolizer sym;
  // binutils comes with the compiler that built this test: the tool must be there.
  ASSERT_NE(sym.tool(), Symbolizer::Tool::None) << "neither addr2line nor llvm-symbolizer on PATH";
  const Marker m = marker();
  ASSERT_FALSE(m.exe.empty());
  expect_marker(sym.symbolize(m.exe, {m.offset}), 1);
}

// One tool process per module answers every batch: the module's debug information is loaded once.
void one_tool_for_every_batch(Symbolizer::Tool tool, const char* name) {
  const std::string path = find_on_path(name);
  if (path.empty()) GTEST_SKIP() << name << " is not on PATH";
  Symbolizer sym(tool, path);
  const Marker m = marker();
  ASSERT_FALSE(m.exe.empty());
  expect_marker(sym.symbolize(m.exe, {m.offset}), 1);
  expect_marker(sym.symbolize(m.exe, {m.offset, m.offset}), 2);
  EXPECT_EQ(sym.tools_started(), 1u);
  // Larger than the socket's buffers both ways: written and read together, or both sides would block.
  expect_marker(sym.symbolize(m.exe, std::vector<std::uint64_t>(6000, m.offset)), 6000);
  EXPECT_EQ(sym.tools_started(), 1u);
  sym.stop();  // a later batch starts the tool again
  EXPECT_EQ(sym.tools_running(), 0u);
  expect_marker(sym.symbolize(m.exe, {m.offset}), 1);
  EXPECT_EQ(sym.tools_started(), 2u);
  // A tool idle for longer than the limit is ended; one used within it is kept.
  const auto now = std::chrono::steady_clock::now();
  sym.stop_idle(now, std::chrono::seconds(60));
  EXPECT_EQ(sym.tools_running(), 1u);
  sym.stop_idle(now + std::chrono::seconds(61), std::chrono::seconds(60));
  EXPECT_EQ(sym.tools_running(), 0u);
  expect_marker(sym.symbolize(m.exe, {m.offset}), 1);
  EXPECT_EQ(sym.tools_started(), 3u);
}
TEST(Symbolizer, OneAddr2lineAnswersEveryBatchOfAModule) { one_tool_for_every_batch(Symbolizer::Tool::Addr2line, "addr2line"); }
TEST(Symbolizer, OneLlvmSymbolizerAnswersEveryBatchOfAModule) {
  one_tool_for_every_batch(Symbolizer::Tool::LlvmSymbolizer, "llvm-symbolizer");
}

// A stand-in tool: a shell script in the test's temporary directory.
std::string script(const std::string& name, const std::string& body) {
  const char* tmp = std::getenv("TMPDIR");
  std::string path = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/synclint-" + name + "-" +
                     std::to_string(getpid());
  std::ofstream(path) << "#!/bin/sh\n" << body << "\n";
  chmod(path.c_str(), 0755);
  return path;
}

// At most kMaxTools tools run at once: a fifth module's first batch ends the least recently used tool,
// and that module's next batch starts it again. The stand-in answers each address as addr2line -a does.
TEST(Symbolizer, AFifthModuleEndsTheLeastRecentlyUsedTool) {
  const std::string tool = script("answers", "while read a; do echo \"$a\"; echo f; echo a.c:1; done");
  Symbolizer sym(Symbolizer::Tool::Addr2line, tool);
  for (int m = 1; m <= 4; ++m) ASSERT_EQ(sym.symbolize("/m" + std::to_string(m), {0x10}).size(), 1u);
  sym.symbolize("/m1", {0x10});  // m2 is now the least recently used
  EXPECT_EQ(sym.tools_running(), 4u);
  EXPECT_EQ(sym.tools_started(), 4u);
  sym.symbolize("/m5", {0x10});
  EXPECT_EQ(sym.tools_running(), Symbolizer::kMaxTools);
  EXPECT_EQ(sym.tools_started(), 5u);
  sym.symbolize("/m1", {0x10});  // still running
  EXPECT_EQ(sym.tools_started(), 5u);
  sym.symbolize("/m2", {0x10});  // ended for m5: started again
  EXPECT_EQ(sym.tools_started(), 6u);
  sym.stop();
  unlink(tool.c_str());
}

// A tool that exits at once (no debug information it can read, a crash) leaves every address unknown
// and is not started again for that module.
TEST(Symbolizer, AToolThatExitsLeavesTheAddressesUnknownAndIsNotStartedAgain) {
  const std::string tool = script("exits", "exit 3");
  Symbolizer sym(Symbolizer::Tool::Addr2line, tool);
  for (int i = 0; i < 2; ++i) {
    auto r = sym.symbolize("/some/module.so", {0x10, 0x20});
    ASSERT_EQ(r.size(), 2u);
    EXPECT_TRUE(r[0].empty() && r[1].empty());
  }
  EXPECT_EQ(sym.tools_started(), 1u);
  unlink(tool.c_str());
}

// A tool that never answers is killed at the timeout: the probe's window thread does not hang on it.
TEST(Symbolizer, AToolThatNeverAnswersIsKilledAtTheTimeout) {
  const std::string tool = script("hangs", "exec sleep 30");
  Symbolizer sym(Symbolizer::Tool::Addr2line, tool, std::chrono::milliseconds(300));
  const auto began = std::chrono::steady_clock::now();
  auto r = sym.symbolize("/some/module.so", {0x10});
  const auto took = std::chrono::steady_clock::now() - began;
  ASSERT_EQ(r.size(), 1u);
  EXPECT_TRUE(r[0].empty());
  EXPECT_GE(took, std::chrono::milliseconds(250));
  EXPECT_LT(took, std::chrono::seconds(10)) << "the tool was not killed and reaped at once";
  unlink(tool.c_str());
}

// A forked child does not talk to its parent's tool (its answers would go to whichever process reads
// first): it starts its own, and the parent's keeps answering the parent.
TEST(Symbolizer, AForkedChildStartsItsOwnTool) {
  const std::string path = find_on_path("addr2line");
  if (path.empty()) GTEST_SKIP() << "addr2line is not on PATH";
  Symbolizer sym(Symbolizer::Tool::Addr2line, path);
  const Marker m = marker();
  ASSERT_FALSE(m.exe.empty());
  expect_marker(sym.symbolize(m.exe, {m.offset}), 1);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    auto r = sym.symbolize(m.exe, {m.offset});
    const bool ok = r.size() == 1 && !r[0].empty() && r[0].back().line == kMarkerLine && sym.tools_started() == 2;
    sym.stop();
    _exit(ok ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "the child's own tool did not answer it";
  expect_marker(sym.symbolize(m.exe, {m.offset}), 1);
  EXPECT_EQ(sym.tools_started(), 1u);
}

TEST(AnswerComplete, Addr2lineEndsWithTheEndAddressAndItsTwoLinesLlvmSymbolizerWithItsBlankLines) {
  using T = Symbolizer::Tool;
  const std::string one = "0x0000000000001139\nf\n/src/a.cpp:3\n";
  EXPECT_FALSE(answer_complete(T::Addr2line, one, 1));
  EXPECT_FALSE(answer_complete(T::Addr2line, one + "0xffffffffffffffff\n", 1));
  EXPECT_FALSE(answer_complete(T::Addr2line, one + "0xffffffffffffffff\n??\n", 1));
  EXPECT_FALSE(answer_complete(T::Addr2line, one + "0xffffffffffffffff\n??\n??:", 1));
  EXPECT_TRUE(answer_complete(T::Addr2line, one + "0xffffffffffffffff\n??\n??:0\n", 1));
  const std::string block = "f\n/src/a.cpp:3:7\n\n";
  EXPECT_FALSE(answer_complete(T::LlvmSymbolizer, block, 2));
  EXPECT_FALSE(answer_complete(T::LlvmSymbolizer, block + "g\n/src/b.cpp:4:1\n", 2));
  EXPECT_TRUE(answer_complete(T::LlvmSymbolizer, block + "g\n/src/b.cpp:4:1\n\n", 2));
}

TEST(Symbolizer, NoneWhenForced) {
  Symbolizer sym("none");
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
