// run_check end to end on scratch trees: discovery, reading, the Python front-end, suppressions,
// configuration and the per-file errors for bad input.
#include "engine/engine.h"

#include <algorithm>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/config.h"
#include "temp_tree.h"

namespace synclint::engine {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;

constexpr const char* kTrain = R"(import torch

model = torch.nn.Linear(4, 2).cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(100):
    x = torch.randn(8, 4, device="cuda")
    loss = model(x).sum()
    loss.backward()
    opt.step()
    print(loss.item())
)";

class EngineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    old_ = std::filesystem::current_path();
    std::filesystem::current_path(t.root());
  }
  void TearDown() override { std::filesystem::current_path(old_); }

  Report check(std::vector<std::string> paths, CheckOptions options = {}) {
    options.paths = std::move(paths);
    options.jobs = 2;
    return run_check(options);
  }

  static std::vector<std::string> ids_at(const Report& r, const std::string& path, std::uint32_t line) {
    std::vector<std::string> ids;
    for (const auto& f : r.findings)
      if (f.range.path == path && f.range.begin.line == line) ids.push_back(f.rule_id);
    return ids;
  }
  static const FileError* error_for(const Report& r, const std::string& path) {
    for (const auto& e : r.errors)
      if (e.path == path) return &e;
    return nullptr;
  }

  testing::TempTree t;
  std::filesystem::path old_;
};

TEST_F(EngineTest, FindsTheItemInTheTrainingLoop) {
  t.write("proj/train.py", kTrain);
  Report r = check({"proj"});
  EXPECT_EQ(r.files_checked, 1u);
  EXPECT_THAT(r.errors, IsEmpty());
  EXPECT_THAT(ids_at(r, "proj/train.py", 10), ::testing::Contains("SYNC001"));
  EXPECT_TRUE(std::is_sorted(r.findings.begin(), r.findings.end(), finding_less));
}

TEST_F(EngineTest, InlineSuppressionRemovesTheFindingAndUnusedOnesAreReported) {
  std::string text = kTrain;
  text.replace(text.find("print(loss.item())"), 18, "print(loss.item())  # synclint: ignore[SYNC001]");
  text += "y = 1  # synclint: ignore[SYNC002]\n";
  t.write("train.py", text);
  Report r = check({"train.py"});
  EXPECT_THAT(ids_at(r, "train.py", 10), ::testing::Not(::testing::Contains("SYNC001")));
  EXPECT_THAT(ids_at(r, "train.py", 11), ::testing::ElementsAre("SYNC100"));
}

TEST_F(EngineTest, CommandLineSelectionWinsOverConfiguration) {
  t.write("train.py", kTrain);
  t.write(".synclint.toml", "ignore = [\"SYNC001\"]\n");
  EXPECT_THAT(ids_at(check({"train.py"}), "train.py", 10), ::testing::Not(::testing::Contains("SYNC001")));
  CheckOptions o;
  o.select = std::vector<std::string>{"SYNC001"};
  EXPECT_THAT(ids_at(check({"train.py"}, o), "train.py", 10), ::testing::ElementsAre("SYNC001"));
  CheckOptions ignore;
  ignore.ignore = {"SYNC0"};
  EXPECT_THAT(check({"train.py"}, ignore).findings, IsEmpty());
}

TEST_F(EngineTest, UnknownRuleOnTheCommandLineIsAConfigError) {
  t.write("a.py", "");
  CheckOptions o;
  o.select = std::vector<std::string>{"SYNC999"};
  EXPECT_THROW(check({"a.py"}, o), ConfigError);
  CheckOptions n;
  n.ignore = {"tensor-itme"};
  try {
    check({"a.py"}, n);
    FAIL() << "expected a ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_THAT(e.what(), HasSubstr("did you mean 'tensor-item'"));
  }
}

TEST_F(EngineTest, ConfigurationExcludeSkipsWalkedFiles) {
  t.write("train.py", kTrain);
  t.write("gen/train.py", kTrain);
  t.write(".synclint.toml", "exclude = [\"gen\"]\n");
  Report r = check({"."});
  EXPECT_EQ(r.files_checked, 1u);
  EXPECT_THAT(ids_at(r, "gen/train.py", 10), IsEmpty());
}

TEST_F(EngineTest, CallsAcrossFilesMakeTheHelperHot) {
  t.write("proj/metrics.py", "def read(loss):\n    return loss.item()\n");
  t.write("proj/train.py",
          "import torch\nfrom metrics import read\n\nmodel = torch.nn.Linear(4, 2).cuda()\n"
          "for step in range(10):\n    loss = model(torch.randn(8, 4, device='cuda')).sum()\n"
          "    read(loss)\n");
  Report r = check({"proj"});
  EXPECT_THAT(ids_at(r, "proj/metrics.py", 2), ::testing::Contains("SYNC001"));
}

TEST_F(EngineTest, SyntaxErrorInOneFileStillChecksTheOthers) {
  t.write("proj/broken.py", "def f(:\n    pass\n");
  t.write("proj/train.py", kTrain);
  Report r = check({"proj"});
  const FileError* e = error_for(r, "proj/broken.py");
  ASSERT_NE(e, nullptr);
  EXPECT_TRUE(e->fatal);
  EXPECT_THAT(ids_at(r, "proj/train.py", 10), ::testing::Contains("SYNC001"));
}

TEST_F(EngineTest, BadFilesAreReportedAndSkipped) {
  t.write("proj/train.py", kTrain);
  t.write("proj/binary.py", std::string("x = 1\0\0\0", 8));
  t.write("proj/latin1.py", "name = 'caf\xE9'\n");
  t.write("proj/notes.bin", std::string("\0\1\2", 3));
  Report r = check({"proj"});
  EXPECT_EQ(r.files_checked, 1u);
  ASSERT_NE(error_for(r, "proj/binary.py"), nullptr);
  EXPECT_THAT(error_for(r, "proj/binary.py")->message, HasSubstr("binary"));
  ASSERT_NE(error_for(r, "proj/latin1.py"), nullptr);
  EXPECT_THAT(error_for(r, "proj/latin1.py")->message, HasSubstr("UTF-8"));
  EXPECT_EQ(error_for(r, "proj/notes.bin"), nullptr) << "a binary file found by walking is not ours";
  EXPECT_EQ(r.errors.size(), 2u);
  Report named = check({"proj/notes.bin"});
  ASSERT_NE(error_for(named, "proj/notes.bin"), nullptr) << "a named binary file is an error";
}

TEST_F(EngineTest, MissingPathIsFatalAndTheRestIsChecked) {
  t.write("train.py", kTrain);
  Report r = check({"train.py", "nope"});
  ASSERT_NE(error_for(r, "nope"), nullptr);
  EXPECT_TRUE(error_for(r, "nope")->fatal);
  EXPECT_EQ(r.files_checked, 1u);
}

TEST_F(EngineTest, FileOverTheSizeLimitIsAnError) {
  t.write("big.py", std::string(4096, '\n'));
  CheckOptions o;
  o.max_file_bytes = 1024;
  Report r = check({"big.py"}, o);
  ASSERT_NE(error_for(r, "big.py"), nullptr);
  EXPECT_THAT(error_for(r, "big.py")->message, HasSubstr("too large"));
  EXPECT_EQ(r.files_checked, 0u);
}

TEST_F(EngineTest, DeepNestingDoesNotCrash) {
  std::string deep = "x = " + std::string(5000, '(') + "1" + std::string(5000, ')') + "\n";
  for (int i = 0; i < 200; ++i) deep += std::string(static_cast<std::size_t>(i), ' ') + "if x:\n";
  deep += std::string(200, ' ') + "pass\n";
  t.write("deep.py", deep);
  t.write("train.py", kTrain);
  Report r = check({"deep.py", "train.py"});
  EXPECT_EQ(r.files_checked, 2u);
  EXPECT_THAT(ids_at(r, "train.py", 10), ::testing::Contains("SYNC001"));
}

TEST_F(EngineTest, UnreadableCostReportIsAConfigError) {
  t.write("a.py", "");
  t.write("bad.json", "{not json");
  CheckOptions o;
  o.costs_file = "missing.json";
  EXPECT_THROW(check({"a.py"}, o), ConfigError);
  o.costs_file = "bad.json";
  EXPECT_THROW(check({"a.py"}, o), ConfigError);
}

}  // namespace
}  // namespace synclint::engine
