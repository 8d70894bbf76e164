// Parser::parse_again: a parse that starts from a kept tree (the last one, or the one before) gives the tree a
// parse from scratch gives, node by node, and takes most of its nodes from the kept tree.
#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <random>
#include <string>

#include "cache_samples.h"
#include "python/syntax.h"

namespace synclint::python::test {
namespace {

// `a` and `b` hold the same nodes.
void expect_same_nodes(const SyntaxTree& a, const SyntaxTree& b, const std::string& what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (std::uint32_t i = 0; i < a.size(); ++i)
    ASSERT_EQ(std::memcmp(&a.at(i), &b.at(i), sizeof(SyntaxTree::Item)), 0) << "node " << i << ", " << what;
}

// A parse that starts from the tree of the last text gives the tree a parse from scratch gives, node by node,
// after random edits (with and without syntax errors, brackets and quotes left open, unpacking stars) of a
// longer file. A tree with errors is parsed from the last tree too.
TEST(ParseAgain, AParseFromTheLastTreeIsAParseFromScratch) {
  std::string base;
  for (int i = 0; i < 20; ++i) base += kTrain + "\n" + kModel;
  const std::string chars = "abx_0 ():\n#'\"[]{}.,=*";
  std::mt19937 rng(7);
  Parser incremental, scratch;
  KeptTree kept;
  std::string text;  // the last text parsed
  int without_errors = 0, errors_from_last = 0;
  std::size_t reused = 0;
  for (int step = 0; step < 400; ++step) {
    std::string next = step % 3 == 0 ? base : text;  // edits that pile up, and edits of the original
    const std::size_t at = rng() % (next.size() + 1);
    if (rng() % 3 != 0) next.insert(at, 1, chars[rng() % chars.size()]);
    else if (at < next.size()) next.erase(at, 1 + rng() % 2);
    const std::shared_ptr<const SyntaxTree> a = incremental.parse_again(next, kept);
    const std::unique_ptr<SyntaxTree> b = scratch.parse(next);
    ASSERT_TRUE(a && b);
    expect_same_nodes(*a, *b, "after edit " + std::to_string(step));
    if (HasFatalFailure()) return;
    if (!(b->at(0).flags & SyntaxTree::HasError)) ++without_errors;
    else if (incremental.reused_last() > 0) ++errors_from_last;
    reused += incremental.reused_last();
    text = std::move(next);
  }
  EXPECT_GT(without_errors, 60);
  EXPECT_GT(errors_from_last, 100);   // trees with errors took nodes from the last tree
  EXPECT_GT(reused, 400u * 250u);  // many nodes of most parses came from the last tree
}

// An edit that leaves an unpacking star tree-sitter rejects (`x = a, *[b]`) gives the tree of a parse from
// scratch, which parses the text with the star made a space.
TEST(ParseAgain, AParseFromTheLastTreeTakesThePatchedStars) {
  std::string base;
  for (int i = 0; i < 5; ++i) base += kTrain + "\n" + kModel;
  base += "x = a, b\n";
  std::string edited = base;
  edited.insert(edited.rfind("b\n"), "*[");
  edited.insert(edited.rfind("\n"), "]");
  Parser incremental, scratch;
  KeptTree kept;
  incremental.parse_again(base, kept);
  const std::shared_ptr<const SyntaxTree> a = incremental.parse_again(edited, kept);
  const std::unique_ptr<SyntaxTree> b = scratch.parse(edited);
  ASSERT_TRUE(a && b);
  EXPECT_FALSE(b->at(0).flags & SyntaxTree::HasError);
  expect_same_nodes(*a, *b, "x = a, *[b]");
}

// A one-character edit takes the nodes of the statements it left alone from the last tree, wherever it is:
// a comment put before the first statement (which removes the first newline token), a line made a comment
// in the middle of a function, a character typed into a name.
TEST(ParseAgain, AnEditTakesTheNodesOfWhatItLeftAloneFromTheLastTree) {
  std::string base = "import torch\nimport torch.nn.functional as F\n\n";
  for (int i = 0; i < 40; ++i) base += kTrain + "\n" + kModel;
  const std::size_t middle = base.find("\n    ", base.size() / 2) + 1;
  const std::size_t name = base.find("def ", base.size() / 3) + 4;
  struct Edit {
    std::size_t at;
    std::string text;
    const char* what;
  };
  const Edit edits[] = {{0, "#", "comment before the first statement"},
                        {middle, "#", "a line of a function made a comment"},
                        {name, "x", "a character typed into a function's name"}};
  Parser incremental, scratch;
  for (const Edit& e : edits) {
    KeptTree kept;
    incremental.parse_again(base, kept);
    std::string edited = base;
    edited.insert(e.at, e.text);
    for (const std::string* text : {&edited, &base}) {  // typed, then taken back
      const std::shared_ptr<const SyntaxTree> a = incremental.parse_again(*text, kept);
      const std::unique_ptr<SyntaxTree> b = scratch.parse(*text);
      ASSERT_TRUE(a && b);
      expect_same_nodes(*a, *b, e.what);
      if (HasFatalFailure()) return;
      EXPECT_GT(incremental.reused_last(), a->size() * 9 / 10) << e.what << " (of " << a->size() << ")";
    }
  }
}


// A file of training steps, each with a statement tree-sitter reads two ways until its `=` (`x, y = batch`).
std::string steps_file(int count) {
  const std::string step =
      "def step(model, batch, optimizer):\n"
      "    x, y = batch\n"
      "    for it in range(4):\n"
      "        loss = model(x.cuda(), y.cuda())\n"
      "        if loss.item() > 1e4:\n"
      "            raise RuntimeError('diverged')\n"
      "    return loss\n\n";
  std::string text = "import torch\n\n";
  for (int i = 0; i < count; ++i) text += step;
  return text;
}

// A character typed and deleted again, over and over, in the middle of a longer file: each parse takes
// nearly all nodes from a kept tree (the one before the last, whose text the deletion gives back), and
// gives the tree a parse from scratch gives. Starting from the last tree instead, tree-sitter would re-read
// every statement after the edit on the way back (those made while it read `x, y = batch` two ways).
TEST(ParseAgain, ACharacterTypedAndDeletedReusesTheTreeBefore) {
  const std::string base = steps_file(80);
  const std::size_t at = base.find("            raise", base.size() / 2);
  std::string typed = base;
  typed.insert(at, "#");
  Parser incremental, scratch;
  KeptTree kept;
  incremental.parse_again(base, kept);
  for (int k = 0; k < 8; ++k) {
    const std::string& text = k % 2 == 0 ? typed : base;
    const std::shared_ptr<const SyntaxTree> a = incremental.parse_again(text, kept);
    const std::unique_ptr<SyntaxTree> b = scratch.parse(text);
    ASSERT_TRUE(a && b);
    expect_same_nodes(*a, *b, "edit " + std::to_string(k));
    if (HasFatalFailure()) return;
    EXPECT_GT(incremental.reused_last(), a->size() * 9 / 10) << "edit " << k << " (of " << a->size() << ")";
  }
}

// A parse stopped by Parser::set_stop's function throws ParseStopped and leaves the kept trees as they were:
// the next parses, not stopped, give the trees a parse from scratch gives.
TEST(ParseAgain, AStoppedParseLeavesTheKeptTreesAsTheyWere) {
  std::string base;
  for (int i = 0; i < 100; ++i) base += kTrain + "\n" + kModel;
  std::string open = base;  // a syntax error in the middle (a bracket left open)
  open.insert(open.find("\ndef ", open.size() / 2) + 1, "x = (\n");
  Parser incremental, scratch;
  KeptTree kept;
  incremental.parse_again(base, kept);
  const std::function<bool()> stop = [] { return true; };
  incremental.set_stop(&stop);
  EXPECT_THROW((void)incremental.parse_again(open, kept), ParseStopped);
  incremental.set_stop(nullptr);
  for (const std::string* text : {&open, &base, &open}) {
    const std::shared_ptr<const SyntaxTree> a = incremental.parse_again(*text, kept);
    const std::unique_ptr<SyntaxTree> b = scratch.parse(*text);
    ASSERT_TRUE(a && b);
    expect_same_nodes(*a, *b, text == &base ? "base" : "open bracket");
  }
}

}  // namespace
}  // namespace synclint::python::test
