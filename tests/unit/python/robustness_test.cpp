// Bad input: syntax errors, deep nesting, large files, comments; never a crash.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "test_catalog.h"

namespace synclint::python::test {
namespace {

TEST(Robustness, SyntaxErrorIsReportedAndTheRestIsAnalysed) {
  const auto r = analyze(R"(import torch
for i in range(3):
    torch.ones(1, device="cuda").item()
def broken(:
    pass
)");
  ASSERT_FALSE(r.errors.empty());
  EXPECT_TRUE(r.errors[0].fatal);
  EXPECT_EQ(r.errors[0].message.rfind("syntax error: ", 0), 0u) << r.errors[0].message;
  ASSERT_TRUE(r.errors[0].position.has_value());
  EXPECT_EQ(r.errors[0].position->line, 4u);
  EXPECT_EQ(r.findings.size(), 1u);
}

TEST(Robustness, DeepNestingDoesNotOverflow) {
  // 5,000 nested blocks and a 5,000-deep expression.
  std::string src = "import torch\nx = torch.ones(1, device='cuda')\n";
  for (int i = 0; i < 5000; ++i) src += std::string(i, ' ') + "if True:\n";
  src += std::string(5000, ' ') + "x.item()\n";
  src += "y = " + std::string(5000, '(') + "x" + std::string(5000, ')') + "\n";
  src += "z = x" + std::string() ;
  for (int i = 0; i < 5000; ++i) src += " + x";
  src += "\nfor i in range(2):\n    [[[[[[x.item()]]]]]]\n";
  const auto r = analyze(src);
  // The `.item()` under 5,000 `if True:` is module-level code, run once: cold. The one in the loop's
  // comprehension is the only finding.
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].rule_id, "SYNC001");
  EXPECT_EQ(r.findings[0].range.begin.line, 5007u);
  EXPECT_EQ(r.findings[0].range.begin.column, 11u);
}

TEST(Robustness, DeeplyNestedLoopsAndCallsDoNotOverflow) {
  std::string src = "import torch\nx = torch.ones(1, device='cuda')\n";
  for (int i = 0; i < 5000; ++i) src += std::string(i, ' ') + "for i" + std::to_string(i) + " in range(2):\n";
  src += std::string(5000, ' ') + "x.item()\n";
  std::string call = "x";
  for (int i = 0; i < 5000; ++i) call = "f(" + call + ")";
  src += "y = " + call + "\n";
  const auto r = analyze(src);
  // tree-sitter gives up on 5,000 nested blocks and reports the file as a syntax error, yet the read in the
  // innermost loop (line 5,003, after the two header lines and 5,000 `for` lines) is still found. The
  // 5,000 nested calls are past the walk's depth limit: a note (not fatal) says so.
  ASSERT_EQ(r.errors.size(), 2u);
  EXPECT_EQ(r.errors[0].message.rfind("syntax error: ", 0), 0u) << r.errors[0].message;
  EXPECT_FALSE(r.errors[1].fatal);
  EXPECT_NE(r.errors[1].message.find("nested more than 180 levels"), std::string::npos) << r.errors[1].message;
  ASSERT_TRUE(r.errors[1].position.has_value());
  EXPECT_GT(r.errors[1].position->line, 2u);
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].rule_id, "SYNC001");
  EXPECT_EQ(r.findings[0].range.begin.line, 5003u);
  EXPECT_EQ(r.findings[0].range.begin.column, 5001u);
}

TEST(Robustness, LargeFileIsAnalysed) {
  std::string src = "import torch\ndevice = 'cuda'\n";
  std::string body;
  for (int i = 0; i < 20000; ++i)
    body += "def f" + std::to_string(i) + "(x):\n    y = x * 2 + " + std::to_string(i) +
            "\n    return y.sum()\n\n";
  src += body;
  src += "for step in range(10):\n    f19999(torch.ones(3, device=device)).item()\n";
  ASSERT_GT(src.size(), 1'000'000u);
  const auto r = analyze(src);
  EXPECT_TRUE(r.errors.empty());
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].confidence, Confidence::High);
}

TEST(Robustness, CommentsAreReturnedWithCodePointColumns) {
  const auto r = analyze("x = 'é'  # synclint: ignore[SYNC001]\n# noqa\n");
  ASSERT_EQ(r.comments.size(), 2u);
  EXPECT_EQ(r.comments[0].text, "# synclint: ignore[SYNC001]");
  EXPECT_EQ(r.comments[0].begin.line, 1u);
  EXPECT_EQ(r.comments[0].begin.column, 10u);
  EXPECT_EQ(r.comments[1].begin.line, 2u);
}

TEST(Robustness, CommentsInsideStatementsAndExpressionsAreReturned) {
  // The index pass skips the inside of one-line expressions; comments inside multi-line ones, after a
  // decorator (whose newline follows the comment) and after one-line statements must all be found.
  const auto r = analyze(
      "@decorate  # c1\n"
      "def f(a,  # c2\n"
      "      b):\n"
      "    return g(a,  # c3\n"
      "             [b,  # c4\n"
      "              1])  # c5\n"
      "def h(): return 1  # c6\n"
      "x = (1 +  # c7\n"
      "     2)\n");
  std::vector<std::string> texts;
  for (const auto& c : r.comments) texts.push_back(c.text);
  EXPECT_EQ(texts, (std::vector<std::string>{"# c1", "# c2", "# c3", "# c4", "# c5", "# c6", "# c7"}));
}

TEST(Robustness, CommentsNearSyntaxErrorsAreReturned) {
  const auto r = analyze("x = f(1,  # c1\n  2, )) # c2\ny = 1  # c3\n");
  EXPECT_FALSE(r.errors.empty());
  std::vector<std::string> texts;
  for (const auto& c : r.comments) texts.push_back(c.text);
  EXPECT_EQ(texts, (std::vector<std::string>{"# c1", "# c2", "# c3"}));
}

TEST(Robustness, ColumnsCountCodePoints) {
  const auto r = analyze("import torch\nfor i in range(2):\n    s = 'ééé'; torch.ones(1, device='cuda').item()\n");
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].range.begin.column, 16u);
}

TEST(Robustness, EmptyAndOddInputs) {
  EXPECT_TRUE(analyze("").findings.empty());
  EXPECT_TRUE(analyze("\n\n\n").findings.empty());
  const auto r = analyze(std::string("x = 1\0y = 2\n", 12));
  EXPECT_TRUE(r.findings.empty());
  // A NUL byte inside code is a syntax error (reported once, not a crash), where tree-sitter meets it.
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0].message.rfind("syntax error: ", 0), 0u) << r.errors[0].message;
  ASSERT_TRUE(r.errors[0].position.has_value());
  EXPECT_EQ(r.errors[0].position->line, 1u);
  EXPECT_EQ(r.errors[0].position->column, 5u);
  EXPECT_TRUE(analyze_project({}, options()).empty());
}

TEST(Robustness, ParallelJobsGiveTheSameFindings) {
  std::vector<SourceFile> files;
  for (int i = 0; i < 16; ++i)
    files.push_back({"f" + std::to_string(i) + ".py",
                     "import torch\nfor s in range(2):\n    torch.ones(1, device='cuda').item()\n"});
  Options serial = options();
  Options parallel = options();
  parallel.jobs = 4;
  const auto a = analyze_files(files, serial);
  const auto b = analyze_files(files, parallel);
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(a[i].findings.size(), b[i].findings.size());
    for (std::size_t j = 0; j < a[i].findings.size(); ++j) EXPECT_EQ(a[i].findings[j].message, b[i].findings[j].message);
  }
}

}  // namespace
}  // namespace synclint::python::test

namespace synclint::python::test {
namespace {

TEST(Robustness, FilesBeyondTheTreeBudgetAreParsedAgainWhenWalked) {
  // Ten files of about 1 MB: the trees of the last ones are freed after indexing and parsed again for each
  // walk; their findings and the cross-file chain must be the same as for the first ones.
  std::string filler;
  for (int i = 0; i < 9000; ++i) filler += "def g" + std::to_string(i) + "(a, b=1):\n    return a * b + " + std::to_string(i) + "\n\n";
  std::vector<SourceFile> files;
  files.push_back({"p/train.py", "import torch\nfrom last import report\nfor step in range(10):\n"
                                 "    report(torch.ones(1, device='cuda'), device='cuda')\n"});
  for (int f = 1; f < 10; ++f) files.push_back({"p/pad" + std::to_string(f) + ".py", filler});
  files.push_back({"p/last.py", filler + "def report(loss, device=None):\n    return loss.item()\n"});
  const auto r = analyze_files(files);
  ASSERT_EQ(r.size(), files.size());
  ASSERT_EQ(r.back().findings.size(), 1u);
  const Finding* f = &r.back().findings[0];
  EXPECT_EQ(f->rule_id, "SYNC001");
  EXPECT_EQ(f->confidence, Confidence::High);
  EXPECT_NE(f->message.find("called from train.py:4 inside loop at train.py:3"), std::string::npos) << f->message;
  for (std::size_t i = 0; i + 1 < r.size(); ++i) EXPECT_TRUE(r[i].findings.empty());
}

}  // namespace
}  // namespace synclint::python::test

namespace synclint::python::test {
namespace {

TEST(Robustness, LongChainsDoNotRecurseDeeply) {
  std::string chain = "x";
  for (int i = 0; i < 20000; ++i) chain += ".a";
  std::string nots;
  for (int i = 0; i < 20000; ++i) nots += "not ";
  const auto r = analyze("import torch\nx = torch.ones(1, device='cuda')\nfor i in range(2):\n    y = " + chain +
                         "\n    " + chain + " = 1\n    if " + nots + "(i % 2 == 0):\n        x.item()\n");
  EXPECT_EQ(r.findings.size(), 1u);
}

}  // namespace
}  // namespace synclint::python::test
