// run_check end to end on scratch trees: discovery, reading, the Python front-end, suppressions,
// configuration and the per-file errors for bad input.
#include "engine/engine.h"

#include <sys/stat.h>

#include <algorithm>
#include <fstream>

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

TEST_F(EngineTest, EachWalkedFolderTakesTheClosestConfiguration) {
  t.write(".synclint.toml", "ignore = [\"SYNC001\"]\n");
  // No configuration of its own: the root's; a folder named like a configuration file is none.
  t.write("a/b/train.py", kTrain);
  t.write("a/pyproject.toml/train.py", kTrain);
  // Its own, below a folder resolved before it.
  t.write("a/own/.synclint.toml", "select = [\"SYNC001\"]\n");
  t.write("a/own/deeper/train.py", kTrain);
  t.write("a/own/train.py", kTrain);
  Report r = check({"."});
  EXPECT_EQ(r.files_checked, 4u);
  EXPECT_THAT(ids_at(r, "a/b/train.py", 10), IsEmpty());
  EXPECT_THAT(ids_at(r, "a/pyproject.toml/train.py", 10), IsEmpty());
  EXPECT_THAT(ids_at(r, "a/own/train.py", 10), ::testing::ElementsAre("SYNC001"));
  EXPECT_THAT(ids_at(r, "a/own/deeper/train.py", 10), ::testing::ElementsAre("SYNC001"));
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

// A probe report recorded elsewhere (/probed/proj) joined through --path-map onto the finding here.
TEST_F(EngineTest, CostsAreJoinedThroughThePathMap) {
  t.write("proj/train.py", kTrain);
  t.write("costs.json", R"({"schema": "synclint-probe-report", "version": 1,
    "run": {"command": ["python3", "train.py"], "cwd": "/probed/proj", "hostname": "gpu", "pid": 1,
            "rank": -1, "gpu_name": "H200", "wall_ms": 1000.0, "status": "ok"},
    "runs": [], "totals": {"syncs": 100, "host_blocked_ms": 5.0, "gpu_idle_ms": 4.0,
                          "dropped_activity_records": 0, "windows": 1},
    "sites": [{"path": "/probed/proj/train.py", "line": 10, "function": "<module>", "language": "python",
               "api": "cudaStreamSynchronize", "rule_guess": "SYNC001", "calls": 100,
               "host_blocked_ms": 5.0, "gpu_idle_ms": 4.0, "predicted_saving_ms": 3.0,
               "share_of_run": 0.003}]})");
  CheckOptions o;
  o.costs_file = "costs.json";
  o.path_mappings = {{"/probed/proj", (t.root() / "proj").string()}};
  Report r = check({"proj"}, o);
  EXPECT_TRUE(r.has_costs);
  ASSERT_FALSE(r.findings.empty());
  const Finding& first = r.findings.front();  // costed findings come first
  EXPECT_EQ(first.range.begin.line, 10u);
  ASSERT_TRUE(first.cost.has_value());
  EXPECT_EQ(first.cost->calls, 100u);
  EXPECT_DOUBLE_EQ(first.cost->predicted_saving_ms, 3.0);
}

TEST_F(EngineTest, ChecksEveryFileOfTheTreeOnce) {
  t.write("a/one.py", "x = 1\n");
  t.write("a/b/two.py", "y = 2\n");
  Report r = check({"a", "a/b/two.py"});
  EXPECT_EQ(r.files_checked, 2u);
  EXPECT_THAT(r.checked_paths, ::testing::ElementsAre("a/b/two.py", "a/one.py"));
}

// Files changed between the walk and the reads (as a user editing during a run would): deleted, replaced
// by a folder or a FIFO, their folder replaced by a file. A walked file that is gone is a warning, not
// an error; the others are still checked.
TEST_F(EngineTest, FilesGoneBetweenTheWalkAndTheReadsAreWarnings) {
  t.write("proj/train.py", kTrain);
  t.write("proj/deleted.py", "x = 1\n");
  t.write("proj/to_folder.py", "x = 1\n");
  t.write("proj/to_fifo.py", "x = 1\n");
  t.write("proj/sub/inner.py", "x = 1\n");
  CheckOptions o;
  o.after_discovery = [] {
    namespace fs = std::filesystem;
    fs::remove("proj/deleted.py");
    fs::remove("proj/to_folder.py");
    fs::create_directory("proj/to_folder.py");
    fs::remove("proj/to_fifo.py");
    ASSERT_EQ(::mkfifo("proj/to_fifo.py", 0600), 0);
    fs::remove_all("proj/sub");
    std::ofstream("proj/sub") << "now a file\n";
  };
  Report r = check({"proj"}, o);
  for (const char* gone : {"proj/deleted.py", "proj/to_folder.py", "proj/to_fifo.py", "proj/sub/inner.py"}) {
    ASSERT_NE(error_for(r, gone), nullptr) << gone;
    EXPECT_FALSE(error_for(r, gone)->fatal) << gone;
    EXPECT_THAT(error_for(r, gone)->message, HasSubstr("after it was found")) << gone;
  }
  EXPECT_EQ(r.files_checked, 1u);
  EXPECT_THAT(ids_at(r, "proj/train.py", 10), ::testing::Contains("SYNC001"));
}

// A file named on the command line that is gone by the time it is read stays an error.
TEST_F(EngineTest, NamedFileGoneBeforeItsReadIsAnError) {
  t.write("train.py", kTrain);
  CheckOptions o;
  o.after_discovery = [] { std::filesystem::remove("train.py"); };
  Report r = check({"train.py"}, o);
  ASSERT_NE(error_for(r, "train.py"), nullptr);
  EXPECT_TRUE(error_for(r, "train.py")->fatal);
}

}  // namespace
}  // namespace synclint::engine
