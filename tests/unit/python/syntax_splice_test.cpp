// Parser::parse_again putting newly parsed top-level statements into the last tree (syntax_splice.cpp): the
// tree it gives is the tree a parse from scratch gives, node by node, whether it spliced or parsed with
// tree-sitter's own reuse.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "python/syntax.h"

namespace synclint::python::test {
namespace {

// Top-level statements of many shapes: decorated functions and classes, an if/else and a try at the top,
// comments at column 0 inside and between blocks, a string statement, a line continued by a backslash.
const std::string kPieces[] = {
    "import torch\nimport torch.nn.functional as F\n",
    "@torch.no_grad()\ndef evaluate(model, loader):\n    total = 0\n    for x, y in loader:\n"
    "        total += (model(x).argmax(1) == y).sum()\n# a note at column 0\n    return total.item()\n",
    "class Trainer:\n    \"\"\"Runs steps.\"\"\"\n\n    def step(self, batch):\n        x, y = batch\n"
    "        loss = F.cross_entropy(self.model(x), y)\n        # a comment in the block\n        return loss\n",
    "if torch.cuda.is_available():\n    device = 'cuda'\nelse:\n    device = 'cpu'\n",
    "try:\n    import apex\nexcept ImportError:\n    apex = None\n",
    "\"\"\"A string statement.\"\"\"\n",
    "total = 1 + \\\n    2\n",
    "def train(model, loader, opt):\n    for it, (x, y) in enumerate(loader):\n        loss = model(x, y)\n"
    "        if loss.item() > 1e4:\n            raise RuntimeError('diverged')\n        opt.step()\n\n\n",
    "# a comment between statements\n\n",
};

std::string base_text(int copies) {
  std::string text;
  for (int i = 0; i < copies; ++i)
    for (const std::string& piece : kPieces) text += piece;
  return text;
}

bool same_nodes(const SyntaxTree& a, const SyntaxTree& b, std::string* where) {
  if (a.size() != b.size()) {
    *where = "sizes " + std::to_string(a.size()) + " and " + std::to_string(b.size());
    return false;
  }
  for (std::uint32_t i = 0; i < a.size(); ++i)
    if (std::memcmp(&a.at(i), &b.at(i), sizeof(SyntaxTree::Item)) != 0) {
      *where = "node " + std::to_string(i);
      return false;
    }
  return true;
}

// One random edit of `text`, most at the start of a line or of its code, with what makes a statement
// continue or end the one before it (indentation, `else:`, a comment, a quote, a decorator, a backslash at
// the start or the end of a line, brackets), a few characters deleted, or a line deleted.
void random_edit(std::string& text, std::mt19937& rng) {
  static const char* const inserts[] = {"#", "# ", "\n", " ", "    ", "\t", "\"", "'", "\"\"\"", "@", "@dec\n",
                                        "else:\n", "    pass\n", "\\", "\\\n", "(", ")", "[", ":", "def f():\n",
                                        "x = 1\n", "\r\n", "if x:\n", "elif y:\n", "except E:\n", "# c\n", "    # c\n",
                                        "f'", "\n\n", "class C:\n"};
  std::size_t at = rng() % (text.size() + 1);
  const unsigned where = rng() % 3;
  if (where == 0) {  // the start of the line
    const std::size_t nl = at == 0 ? std::string::npos : text.rfind('\n', at - 1);
    at = nl == std::string::npos ? 0 : nl + 1;
  } else if (where == 1) {  // the start of its code
    while (at < text.size() && text[at] == ' ') ++at;
  }
  switch (rng() % 4) {
    case 0:
    case 1: text.insert(at, inserts[rng() % std::size(inserts)]); break;
    case 2: text.erase(at, std::min<std::size_t>(1 + rng() % 3, text.size() - at)); break;
    default:  // the line from `at`, with its line break
      const std::size_t nl = text.find('\n', at);
      if (nl != std::string::npos) text.erase(at, nl - at + 1);
  }
}

// `edits` random edits of `base` (a third of them of `base` itself, the others piling up), each parsed
// with parse_again and from scratch; false at the first tree that differs. Counts the edits spliced and
// not.
bool edits_parse_as_from_scratch(const std::string& base, int edits, unsigned seed, int& spliced, int& not_spliced,
                                 std::string* what) {
  std::mt19937 rng(seed);
  Parser incremental, scratch;
  KeptTree kept;
  incremental.parse_again(base, kept);
  std::string text = base;
  for (int step = 0; step < edits; ++step) {
    std::string next = rng() % 3 == 0 ? base : text;
    random_edit(next, rng);
    const std::shared_ptr<const SyntaxTree> a = incremental.parse_again(next, kept);
    const std::unique_ptr<SyntaxTree> b = scratch.parse(next);
    std::string differs = a && b ? "" : "no tree";
    if (!a || !b || !same_nodes(*a, *b, &differs)) {
      *what = "edit " + std::to_string(step) + " (spliced: " + std::to_string(incremental.spliced_last()) +
              "): " + differs;
      return false;
    }
    (incremental.spliced_last() ? spliced : not_spliced) += 1;
    text = std::move(next);
  }
  return true;
}

// Random edits: each tree is the one a parse from scratch gives, and both ways of parsing are taken often.
TEST(SyntaxSplice, RandomEditsGiveTheTreeOfAParseFromScratch) {
  int spliced = 0, not_spliced = 0;
  std::string what;
  EXPECT_TRUE(edits_parse_as_from_scratch(base_text(12), 1000, 11, spliced, not_spliced, &what)) << what;
  EXPECT_GT(spliced, 75) << "of 1000";
  EXPECT_GT(not_spliced, 75) << "of 1000";
}

// The same over the *.py files of a folder (SYNCLINT_SPLICE_CORPUS; SYNCLINT_SPLICE_EDITS per file, default
// 100): `SYNCLINT_SPLICE_CORPUS=/usr/lib/python3/dist-packages/torch` checks real code.
TEST(SyntaxSplice, RandomEditsOfACorpusWhenAsked) {
  const char* dir = std::getenv("SYNCLINT_SPLICE_CORPUS");
  if (dir == nullptr) GTEST_SKIP() << "SYNCLINT_SPLICE_CORPUS is not set";
  const char* per_file = std::getenv("SYNCLINT_SPLICE_EDITS");
  const int edits = per_file ? std::max(1, std::atoi(per_file)) : 100;
  std::vector<std::filesystem::path> paths;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir))
    if (e.is_regular_file() && e.path().extension() == ".py") paths.push_back(e.path());
  std::sort(paths.begin(), paths.end());
  int spliced = 0, not_spliced = 0;
  for (std::size_t i = 0; i < paths.size(); ++i) {
    std::ifstream in(paths[i], std::ios::binary);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::string what;
    ASSERT_TRUE(edits_parse_as_from_scratch(text, edits, static_cast<unsigned>(i), spliced, not_spliced, &what))
        << paths[i] << ", " << what;
  }
  std::printf("%zu files, %d edits spliced, %d not\n", paths.size(), spliced, not_spliced);
}

// Lines commented out one after another and then taken back in the same order (a block commented and
// uncommented line by line): taking a line back while the lines after it are still comments makes
// tree-sitter's own reuse read the rest of the file again; each such edit is spliced instead, taking
// nearly every node from the last tree.
TEST(SyntaxSplice, LinesTakenBackOneByOneAreSpliced) {
  std::vector<std::string> lines;
  {
    const std::string text = base_text(40);
    std::size_t from = 0;
    for (std::size_t nl; (nl = text.find('\n', from)) != std::string::npos; from = nl + 1)
      lines.push_back(text.substr(from, nl - from));
  }
  auto joined = [&] {
    std::string text;
    for (const std::string& l : lines) text += l + "\n";
    return text;
  };
  Parser incremental, scratch;
  KeptTree kept;
  incremental.parse_again(joined(), kept);
  const std::size_t first = 2, count = 30;  // the lines of `evaluate` and `Trainer`
  for (std::size_t i = first; i < first + count; ++i) {
    lines[i] = "#" + lines[i];
    incremental.parse_again(joined(), kept);
  }
  int spliced = 0;
  for (std::size_t i = first; i < first + count; ++i) {
    lines[i] = lines[i].substr(1);
    const std::string text = joined();
    const std::shared_ptr<const SyntaxTree> a = incremental.parse_again(text, kept);
    const std::unique_ptr<SyntaxTree> b = scratch.parse(text);
    ASSERT_TRUE(a && b);
    std::string differs;
    ASSERT_TRUE(same_nodes(*a, *b, &differs)) << "line " << i << ": " << differs;
    if (incremental.spliced_last()) {
      ++spliced;
      EXPECT_GT(incremental.reused_last(), a->size() * 9 / 10) << "line " << i;
    }
  }
  EXPECT_GT(spliced, static_cast<int>(count) * 2 / 3);
}

// An edit that leaves a syntax error in the statements it touches is not spliced, nor is the edit that
// mends it (a tree with errors is no base for a splice): both trees, errors and all, are a parse's from
// scratch.
TEST(SyntaxSplice, AnEditThatLeavesAnErrorIsNotSplicedNorTheOneThatMendsIt) {
  const std::string base = base_text(10);
  std::string broken = base;
  broken.insert(broken.find("    return total.item()"), "    x = (\n");
  std::string mended = broken;
  mended.replace(mended.find("x = (\n"), 6, "x = ()\n");
  Parser incremental, scratch;
  KeptTree kept;
  incremental.parse_again(base, kept);
  for (const std::string* text : {&broken, &mended}) {
    const std::shared_ptr<const SyntaxTree> tree = incremental.parse_again(*text, kept);
    EXPECT_FALSE(incremental.spliced_last());
    const std::unique_ptr<SyntaxTree> from_scratch = scratch.parse(*text);
    ASSERT_TRUE(tree && from_scratch);
    EXPECT_EQ((from_scratch->at(0).flags & SyntaxTree::HasError) != 0, text == &broken);
    std::string differs;
    EXPECT_TRUE(same_nodes(*tree, *from_scratch, &differs)) << differs;
  }
}

// A statement longer than the text after it is not spliced (tree-sitter's incremental parse reads no more
// than the rest of the file); the same edit in a statement followed by more text is.
TEST(SyntaxSplice, AStatementLongerThanTheTextAfterItIsNotSpliced) {
  std::string body;
  for (int i = 0; i < 50; ++i) body += "        step(model, batch, " + std::to_string(i) + ")\n";
  const std::string train = "def train(model, loader):\n    for batch in loader:\n" + body;
  const std::string small = "def helper(x):\n    return x + 1\n\n\n";
  for (const bool last : {true, false}) {
    const std::string base = last ? small + train : train + "\n\n" + train + "\n\n" + train;
    std::string edited = base;
    edited.insert(edited.find("step(model, batch, 3)"), "x = 1; ");
    Parser incremental, scratch;
    KeptTree kept;
    incremental.parse_again(base, kept);
    const std::shared_ptr<const SyntaxTree> tree = incremental.parse_again(edited, kept);
    EXPECT_EQ(incremental.spliced_last(), !last);
    const std::unique_ptr<SyntaxTree> from_scratch = scratch.parse(edited);
    ASSERT_TRUE(tree && from_scratch);
    std::string differs;
    EXPECT_TRUE(same_nodes(*tree, *from_scratch, &differs)) << differs;
  }
}

}  // namespace
}  // namespace synclint::python::test
