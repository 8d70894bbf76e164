#include "engine/gitignore.h"

#include <gtest/gtest.h>

#include "temp_tree.h"

namespace synclint::engine {
namespace {

std::optional<bool> m(std::string_view patterns, std::string_view path, bool is_dir = false) {
  return IgnoreFile::parse(patterns).match(path, is_dir);
}

TEST(IgnoreFile, UnanchoredNameMatchesAtAnyDepth) {
  EXPECT_EQ(m("*.log\n", "a.log"), true);
  EXPECT_EQ(m("*.log\n", "x/y/a.log"), true);
  EXPECT_EQ(m("*.log\n", "a.py"), std::nullopt);
  EXPECT_EQ(m("gen\n", "src/gen", true), true);
}

TEST(IgnoreFile, StarDoesNotCrossSlashes) {
  EXPECT_EQ(m("src/*.py\n", "src/a.py"), true);
  EXPECT_EQ(m("src/*.py\n", "src/sub/a.py"), std::nullopt);
}

TEST(IgnoreFile, SlashAnchorsToTheFolder) {
  EXPECT_EQ(m("/top.py\n", "top.py"), true);
  EXPECT_EQ(m("/top.py\n", "sub/top.py"), std::nullopt);
  EXPECT_EQ(m("doc/frotz\n", "doc/frotz"), true);
  EXPECT_EQ(m("doc/frotz\n", "a/doc/frotz"), std::nullopt);
}

TEST(IgnoreFile, TrailingSlashMatchesOnlyFolders) {
  EXPECT_EQ(m("out/\n", "out", true), true);
  EXPECT_EQ(m("out/\n", "out", false), std::nullopt);
  EXPECT_EQ(m("out/\n", "a/out", true), true);
}

TEST(IgnoreFile, NegationAndLastMatchWins) {
  const char* p = "*.py\n!keep.py\n";
  EXPECT_EQ(m(p, "drop.py"), true);
  EXPECT_EQ(m(p, "keep.py"), false);
  EXPECT_EQ(m("!keep.py\n*.py\n", "keep.py"), true);
}

TEST(IgnoreFile, DoubleStar) {
  EXPECT_EQ(m("**/gen.py\n", "gen.py"), true);
  EXPECT_EQ(m("**/gen.py\n", "a/b/gen.py"), true);
  EXPECT_EQ(m("a/**/b.py\n", "a/b.py"), true);
  EXPECT_EQ(m("a/**/b.py\n", "a/x/y/b.py"), true);
  EXPECT_EQ(m("a/**/b.py\n", "c/a/b.py"), std::nullopt);
  EXPECT_EQ(m("abc/**\n", "abc/x.py"), true);
  EXPECT_EQ(m("abc/**\n", "abc/x/y.py"), true);
  EXPECT_EQ(m("abc/**\n", "abc", true), std::nullopt) << "trailing /** matches inside, not the folder";
}

TEST(IgnoreFile, CommentsBlanksEscapesAndSpaces) {
  EXPECT_EQ(m("# a.py\n\n", "# a.py"), std::nullopt);
  EXPECT_EQ(m("\\#a.py\n", "#a.py"), true);
  EXPECT_EQ(m("\\!a.py\n", "!a.py"), true);
  EXPECT_EQ(m("a.py   \n", "a.py"), true) << "trailing spaces are dropped";
  EXPECT_EQ(m("a.py\\ \n", "a.py "), true) << "an escaped trailing space is kept";
  EXPECT_EQ(m("a.py\r\n", "a.py"), true) << "CRLF line ends";
}

TEST(IgnoreFile, BracketsAndQuestionMark) {
  EXPECT_EQ(m("file[0-9].py\n", "file3.py"), true);
  EXPECT_EQ(m("file[0-9].py\n", "filex.py"), std::nullopt);
  EXPECT_EQ(m("?.py\n", "a.py"), true);
  EXPECT_EQ(m("?.py\n", "ab.py"), std::nullopt);
}

TEST(IgnoreStack, DeeperFilesWinAndParentsUpToTheRepositoryApply) {
  testing::TempTree t;
  t.mkdir("repo/.git");
  t.write("repo/.gitignore", "*.gen.py\nsecret/\n");
  t.write("repo/src/.gitignore", "!keep.gen.py\n");
  IgnoreStack stack;
  const auto src = std::filesystem::canonical(t.path("repo/src"));
  stack.push_parents(src);
  stack.push_dir(src);
  EXPECT_TRUE(stack.ignored(src / "a.gen.py", false));
  EXPECT_FALSE(stack.ignored(src / "keep.gen.py", false));
  EXPECT_TRUE(stack.ignored(src / "secret", true));
  EXPECT_FALSE(stack.ignored(src / "main.py", false));
}

TEST(IgnoreStack, ParentIgnoreFilesOutsideARepositoryDoNotApply) {
  testing::TempTree t;
  t.write("outer/.gitignore", "*.py\n");
  t.mkdir("outer/proj");
  IgnoreStack stack;
  const auto proj = std::filesystem::canonical(t.path("outer/proj"));
  stack.push_parents(proj);
  EXPECT_FALSE(stack.ignored(proj / "a.py", false));
}

TEST(IgnoreStack, GitInfoExcludeIsRead) {
  testing::TempTree t;
  t.write("repo/.git/info/exclude", "local.py\n");
  IgnoreStack stack;
  const auto repo = std::filesystem::canonical(t.path("repo"));
  EXPECT_EQ(stack.push_dir(repo), 1u);
  EXPECT_TRUE(stack.ignored(repo / "local.py", false));
  stack.pop(1);
  EXPECT_FALSE(stack.ignored(repo / "local.py", false));
}

}  // namespace
}  // namespace synclint::engine
