// Loose ends (loose_ends.h): which ones the scan finds, in annotated sources (a caret comment line `#   ^`
// marks each loose end on the closest line above it that is not a caret comment), and how the parser and
// the analysis read them.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "python/loose_ends.h"
#include "python/syntax.h"
#include "test_catalog.h"

namespace synclint::python::test {
namespace {

bool caret_line(std::string_view line) {
  const std::size_t first = line.find_first_not_of(' ');
  return first != std::string_view::npos && line[first] == '#' &&
         line.find_first_not_of("# ^") == std::string_view::npos && line.find('^') != std::string_view::npos;
}

// The brackets the caret comments of `text` mark.
std::vector<LooseEnd> marked(std::string_view text) {
  std::vector<std::string_view> lines;
  for (std::size_t at = 0; at <= text.size();) {
    const std::size_t nl = std::min(text.find('\n', at), text.size());
    lines.push_back(text.substr(at, nl - at));
    at = nl + 1;
  }
  std::vector<std::size_t> starts(lines.size());
  for (std::size_t i = 1; i < lines.size(); ++i) starts[i] = starts[i - 1] + lines[i - 1].size() + 1;
  std::vector<LooseEnd> out;
  std::size_t target = 0;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (!caret_line(lines[i])) {
      target = i;
      continue;
    }
    for (std::size_t col = lines[i].find('^'); col != std::string_view::npos; col = lines[i].find('^', col + 1))
      out.push_back(LooseEnd{static_cast<std::uint32_t>(starts[target] + col), static_cast<std::uint32_t>(target)});
  }
  return out;
}

void expect_marked(const std::string& text) {
  const std::vector<LooseEnd> want = marked(text), got = loose_ends(text);
  ASSERT_EQ(got.size(), want.size()) << text;
  for (std::size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].byte, want[i].byte) << "bracket " << i << " of\n" << text;
    EXPECT_EQ(got[i].row, want[i].row) << "bracket " << i << " of\n" << text;
  }
}

TEST(LooseEnds, BracketsClosedOnLaterLinesAreNotOpen) {
  expect_marked(R"py(model = Net(
    dim=512,
    heads=[8,
           16],
)
d = {"a": (1,
           2)}
total = 1 + \
    2
)py");
}

TEST(LooseEnds, BracketsLeftOpenWhileTyping) {
  expect_marked(R"py(def train(model, loader):
    for x in loader:
        stats.append(out.mean(
#                   ^        ^
        loss = model(x)
        print(float(loss))
    return stats
)py");
  expect_marked("x = foo(a, [b]\n#      ^\n");
  const std::string loose_last = "y = bar(1)\nx = foo(";  // at the end of the text, no line break
  EXPECT_EQ(loose_ends(loose_last), (std::vector<LooseEnd>{{18, 1}}));
}

TEST(LooseEnds, AClosingBracketClosesTheLastOpenOneOfAnyKind) {
  expect_marked("x = foo(a]\ny = 1)\nz = [\n#   ^\n");
}

TEST(LooseEnds, StringsAndCommentsHoldNoBrackets) {
  expect_marked(R"py(a = "(" + '[' + """{
(""" + '''
[''' + r"\"(" + b'\'[' + Rb"(" + u'(' + BR'['
b = "unterminated (
c = 'unterminated [
d = 1  # a comment (
e = x.f('''a ( b''') + "\\" + "("
)py");
  expect_marked("s = '''never closed (\n[\n");
  expect_marked("s = \"a \\\r\n(\"\n");  // a CRLF line break escaped inside the literal
}

TEST(LooseEnds, ReplacementFieldsOfFormattedStrings) {
  expect_marked(R"py(a = f"{x['k']}" + f'{y["k"]:>{width}}' + f"{{(" + F"{ {'k': 1}['k'] }"
b = f"{x["k"]}" + f"{f"{1}"}" + f"{a!r}" + f"{a!=b}" + rf"{c}\(" + f"{d:%H:%M}"
c = f"""{foo(
    1)}""" + t"{g(2)}"
d = f"{x
e = f"{x:{y
f = foo(f"{x}"
#      ^
)py");
}

TEST(LooseEnds, DotsThatEndTheirLines) {
  expect_marked(R"py(stats.
#    ^
x = 1.
y = ...
z = a.\
    b
w = (a.
     b)
v = a.  # a comment
#    ^
u = f(a.
#    ^ ^
t = [1,
     2].
#      ^
from . import m
)py");
  expect_marked("x = 1e-5 + 0x1e-5 + .5 + a.b + 1.\n");
  EXPECT_EQ(loose_ends("a = 1\nstats."), (std::vector<LooseEnd>{{11, 1}}));
}

TEST(LooseEnds, RowsCountLineFeedsOnly) {
  const std::string text = "a = 1\r\nb = (\r\nc = \"\"\"\n\n\"\"\"\nd = [\\\n\n";
  EXPECT_EQ(loose_ends(text), (std::vector<LooseEnd>{{11, 1}, {31, 5}}));
}

// Valid Python has no loose ends: the fixtures and examples (all of them parse without errors), and with
// SYNCLINT_LOOSE_ENDS_CORPUS=DIR every *.py file below DIR, a folder of valid Python (Debian's
// python3-torch package: /usr/lib/python3/dist-packages/torch). A file with a loose end is named.
TEST(LooseEnds, NoneInValidPython) {
  std::vector<std::filesystem::path> roots = {std::filesystem::path(SYNCLINT_SOURCE_DIR) / "fixtures",
                                              std::filesystem::path(SYNCLINT_SOURCE_DIR) / "examples"};
  if (const char* dir = std::getenv("SYNCLINT_LOOSE_ENDS_CORPUS")) roots.emplace_back(dir);
  std::size_t files = 0;
  for (const auto& root : roots)
    for (const auto& e : std::filesystem::recursive_directory_iterator(root)) {
      if (!e.is_regular_file() || e.path().extension() != ".py") continue;
      std::ifstream in(e.path(), std::ios::binary);
      const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      const std::vector<LooseEnd> ends = loose_ends(text);
      EXPECT_TRUE(ends.empty()) << e.path() << ":" << (ends.empty() ? 0 : ends[0].row + 1);
      ++files;
    }
  EXPECT_GT(files, 90u);
  std::printf("scanned %zu files\n", files);
}

// Deep nesting of every kind the scan recurses into, and random bytes: no crash, and every bracket found
// is an opening bracket of the text.
TEST(LooseEnds, HostileInput) {
  std::string deep;
  for (int i = 0; i < 100000; ++i) deep += "f\"{";
  EXPECT_TRUE(loose_ends(deep).empty());
  std::string spec = "f'{x";
  for (int i = 0; i < 100000; ++i) spec += ":{y";
  EXPECT_TRUE(loose_ends(spec).empty());
  EXPECT_EQ(loose_ends(std::string(100000, '(')).size(), 100000u);
  std::mt19937 rng(7);
  const std::string alphabet = "()[]{}'\"\\#\nfrbt:!= x.1";
  for (int round = 0; round < 2000; ++round) {
    std::string text;
    for (std::size_t n = rng() % 64; n > 0; --n) text += alphabet[rng() % alphabet.size()];
    for (const LooseEnd& b : loose_ends(text)) {
      ASSERT_LT(b.byte, text.size());
      EXPECT_NE(std::string_view("([{.").find(text[b.byte]), std::string_view::npos) << text;
    }
  }
}

// The parser reads the loose ends as spaces, from scratch and again after an edit, and names them.
TEST(LooseEnds, TheParserReadsThemAsSpaces) {
  const std::string text = "def f(x):\n    y = g(x\n    return y.item()\n";
  const std::vector<LooseEnd> open = loose_ends(text);
  ASSERT_EQ(open.size(), 1u);
  std::string spaced = text;
  spaced[open[0].byte] = ' ';
  Parser parser, scratch;
  const std::unique_ptr<SyntaxTree> tree = parser.parse(text);
  EXPECT_EQ(parser.loose_last(), open);
  const std::unique_ptr<SyntaxTree> expected = scratch.parse(spaced);
  EXPECT_TRUE(scratch.loose_last().empty());
  ASSERT_TRUE(tree && expected);
  ASSERT_EQ(tree->size(), expected->size());
  for (std::uint32_t i = 0; i < tree->size(); ++i) EXPECT_EQ(std::memcmp(&tree->at(i), &expected->at(i), sizeof(SyntaxTree::Item)), 0);

  KeptTree kept;
  const std::string closed = "def f(x):\n    y = g(x)\n    return y.item()\n";
  parser.parse_again(closed, kept);
  EXPECT_TRUE(parser.loose_last().empty());
  const std::shared_ptr<const SyntaxTree> again = parser.parse_again(text, kept);
  EXPECT_EQ(parser.loose_last(), open);
  ASSERT_TRUE(again);
  ASSERT_EQ(again->size(), expected->size());
  for (std::uint32_t i = 0; i < again->size(); ++i) EXPECT_EQ(std::memcmp(&again->at(i), &expected->at(i), sizeof(SyntaxTree::Item)), 0);
}

// A loose end costs its own line only: the findings after it are those of the file as it will be once the
// line is finished, and it is reported as a syntax error at its place, in place of what tree-sitter finds on
// its line.
TEST(LooseEnds, TheAnalysisGoesOnAfterThem) {
  const std::string head = "import torch\n\ndef train(model, loader, opt):\n    stats = []\n"
                           "    for x in loader:\n        loss = model(x.cuda())\n";
  const std::string tail = "        opt.step()\n        print(float(loss))\n        stats.append(loss.item())\n";
  const auto clean = analyze(head + "        stats.append(loss.mean())\n" + tail);
  ASSERT_TRUE(clean.errors.empty());
  ASSERT_GE(clean.findings.size(), 2u);
  const struct {
    const char* line;
    const char* error;
    unsigned column;
  } cases[] = {{"stats.append(loss.mean(", "syntax error: '(' was never closed", 21},
               {"stats.append(loss.", "syntax error: '(' was never closed", 21},
               {"stats.", "syntax error: expected a name after '.'", 14}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.line);
    const auto typing = analyze(head + "        " + c.line + "\n" + tail);
    ASSERT_EQ(typing.errors.size(), 1u);
    EXPECT_EQ(typing.errors[0].message, c.error);
    ASSERT_TRUE(typing.errors[0].position.has_value());
    EXPECT_EQ(typing.errors[0].position->line, 7u);
    EXPECT_EQ(typing.errors[0].position->column, c.column);
    ASSERT_EQ(typing.findings.size(), clean.findings.size());
    for (std::size_t i = 0; i < clean.findings.size(); ++i) {
      EXPECT_EQ(typing.findings[i].rule_id, clean.findings[i].rule_id);
      EXPECT_EQ(typing.findings[i].range.begin, clean.findings[i].range.begin);
    }
  }
}

}  // namespace
}  // namespace synclint::python::test
