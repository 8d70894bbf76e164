// The rounds of walks: a file walked again walks only what must be and keeps the rest, with the results of a
// walk of everything; and syntax trees made and freed on different threads.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "python/syntax.h"
#include "python_files.h"
#include "test_catalog.h"

namespace synclint::python::test {
namespace {

using ::testing::ElementsAre;

// The project's one `.item()` finding is in `path` at `line`, column 9, with high confidence (the value is
// known to be on the GPU, which takes the rounds to learn).
void expect_one_item_on_device(const std::vector<FileResult>& rs, const std::string& path, std::uint32_t line) {
  for (const FileResult& r : rs) {
    if (r.path != path) continue;
    ASSERT_THAT(sites(r, "SYNC001"), ElementsAre(std::to_string(line) + ":9"));
    EXPECT_EQ(find(r, "SYNC001", line)->confidence, Confidence::High);
    return;
  }
  ADD_FAILURE() << "no result for " << path;
}

// f1 ... f9 each return the result of the one before, walked before it in the same file. f0 learns its
// result only in the second round (from utils.py); the others read nothing that changed between the first
// two rounds: only the fresh results in the same walk of chain.py make them walked again. One function a
// round would need more rounds than there are.
TEST(Rounds, ASameFileResultThatChangesInTheWalkWalksItsReadersAgain) {
  std::string chain = "import torch\nfrom utils import to_gpu\ndef f0():\n    return to_gpu(torch.ones(3))\n";
  for (int i = 1; i < 10; ++i)
    chain += "def f" + std::to_string(i) + "():\n    return f" + std::to_string(i - 1) + "()\n";
  expect_one_item_on_device(analyze_files({
                                {"proj/utils.py", "def to_gpu(x):\n    return x.cuda()\n"},
                                {"proj/chain.py", chain},
                                {"proj/loop.py", "from chain import f9\ndef main(loader):\n"
                                                 "    for batch in loader:\n        f9().item()\n"},
                            }),
                            "proj/loop.py", 4);
}

// The class attributes of a file walked again are joined from the writes of the methods walked again and
// of those that were not: `t` (set by a method with nothing new to read) must survive the second walk of
// the file, which `__init__` needs (it reads `make` from another file).
TEST(Rounds, ClassAttributesKeepTheWritesOfMethodsNotWalkedAgain) {
  expect_one_item_on_device(analyze_files({
      {"proj/helpers.py", "def make():\n    return 0\n"},
      {"proj/model.py",
       "import torch\n"
       "from helpers import make\n"
       "class Holder:\n"
       "    def __init__(self):\n"
       "        self.n = make()\n"
       "    def setup(self):\n"
       "        self.t = torch.ones(1, device='cuda')\n"},
      {"proj/train.py",
       "from model import Holder\n"
       "def main(loader):\n"
       "    h = Holder()\n"
       "    for batch in loader:\n"
       "        h.t.item()\n"},
  }), "proj/train.py", 5);
}

// The same project on 1 and 4 threads: the same results.
TEST(Rounds, ResultsDoNotDependOnTheThreads) {
  std::vector<SourceFile> files;
  for (int i = 0; i < 12; ++i) {
    const std::string n = std::to_string(i), next = std::to_string((i + 1) % 12);
    files.push_back({"proj/m" + n + ".py",
                     "import torch\nfrom m" + next + " import f" + next + "\n"
                     "def f" + n + "(x):\n    return f" + next + "(x) if x else torch.ones(1, device='cuda')\n"
                     "def loop" + n + "(loader):\n    for b in loader:\n        f" + n + "(b).item()\n"});
  }
  Options one = options(), four = options();
  one.jobs = 1;
  four.jobs = 4;
  const auto a = analyze_files(files, one), b = analyze_files(files, four);
  ASSERT_EQ(a.size(), b.size());
  std::size_t findings = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(sites(a[i], "SYNC001"), sites(b[i], "SYNC001")) << a[i].path;
    findings += a[i].findings.size();
  }
  EXPECT_EQ(findings, 12u);
}

// Each finding as one line: where, what, the chain and related locations.
std::vector<std::string> described(const FileResult& r) {
  std::vector<std::string> out;
  for (const Finding& f : r.findings) {
    std::string s = f.rule_id + " " + std::to_string(f.range.begin.line) + ":" + std::to_string(f.range.begin.column) +
                    " " + std::to_string(static_cast<int>(f.severity)) + std::to_string(static_cast<int>(f.confidence)) +
                    " " + std::to_string(f.reads_per_step) + " " + f.message;
    for (const RelatedLocation& l : f.related)
      s += " | " + l.range.path + ":" + std::to_string(l.range.begin.line) + " " + l.message;
    out.push_back(std::move(s));
  }
  return out;
}

// The results of the rounds as they walk (the files walked again only in part) are those of whole walks.
// Returns the number of findings compared.
std::size_t expect_partial_walks_as_whole(const std::vector<SourceFile>& files) {
  Options partial = options(), whole = options();
  partial.jobs = whole.jobs = 2;
  whole.whole_walks = true;
  const std::vector<FileResult> a = analyze_files(files, partial), b = analyze_files(files, whole);
  std::size_t compared = 0;
  EXPECT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
    EXPECT_EQ(described(a[i]), described(b[i])) << a[i].path;
    compared += a[i].findings.size();
  }
  return compared;
}

TEST(Rounds, PartialWalksGiveTheResultsOfWholeWalksOnTheFixtures) {
  const std::filesystem::path fixtures = std::filesystem::path(SYNCLINT_SOURCE_DIR) / "fixtures";
  std::size_t findings = expect_partial_walks_as_whole(python_files(fixtures / "python"));
  for (const auto& project : std::filesystem::directory_iterator(fixtures / "projects"))
    findings += expect_partial_walks_as_whole(python_files(project.path()));
  EXPECT_GT(findings, 100u);  // the comparison saw findings with calling chains, over files and rounds
}

// SYNCLINT_ROUNDS_CORPUS=DIR: the Python files under DIR as one project (such as an installed torch).
TEST(Rounds, PartialWalksGiveTheResultsOfWholeWalksOnACorpusWhenAsked) {
  const char* dir = std::getenv("SYNCLINT_ROUNDS_CORPUS");
  if (!dir) GTEST_SKIP() << "set SYNCLINT_ROUNDS_CORPUS to a folder of Python files";
  const std::vector<SourceFile> files = python_files(dir);
  const std::size_t findings = expect_partial_walks_as_whole(files);
  std::printf("%zu files, %zu findings compared\n", files.size(), findings);
}

std::string source(int functions) {
  std::string s;
  for (int i = 0; i < functions; ++i)
    s += "def f" + std::to_string(i) + "(x, y=2):\n    return [x * y + i for i in range(" + std::to_string(i) + ")]\n";
  return s;
}

// Trees are parsed (through the tree allocator) on several threads and read and freed on others.
TEST(TreeAllocator, TreesMadeOnOneThreadAreReadAndFreedOnAnother) {
  use_tree_allocator();
  const std::string text = source(300);
  std::vector<std::unique_ptr<SyntaxTree>> trees(8);
  std::vector<std::thread> makers;
  for (int t = 0; t < 4; ++t)
    makers.emplace_back([&, t] {
      Parser parser;
      for (int k = 0; k < 2; ++k) trees[static_cast<std::size_t>(2 * t + k)] = parser.parse(text);
    });
  for (auto& th : makers) th.join();
  ASSERT_NE(trees[0], nullptr);
  const std::size_t expected = trees[0]->size();
  EXPECT_GT(expected, 300u * 10);
  std::vector<std::thread> freers;
  for (int t = 0; t < 2; ++t)
    freers.emplace_back([&, t] {
      for (int k = 0; k < 4; ++k) {
        std::unique_ptr<SyntaxTree>& tree = trees[static_cast<std::size_t>(4 * t + k)];
        ASSERT_NE(tree, nullptr);
        EXPECT_EQ(type(tree->root()), "module");
        EXPECT_EQ(named_count(tree->root()), 300u);
        EXPECT_EQ(tree->size(), expected);
        tree.reset();
      }
    });
  for (auto& th : freers) th.join();
  // A new parse on this thread still works and sees the whole file.
  Parser parser;
  const auto tree = parser.parse(text);
  ASSERT_NE(tree, nullptr);
  EXPECT_EQ(named_count(tree->root()), 300u);
}

}  // namespace
}  // namespace synclint::python::test
