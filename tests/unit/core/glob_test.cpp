// Path globs in both styles: the configuration's (exclude, per-file-ignores) and gitignore's.
#include "core/glob.h"

#include <gtest/gtest.h>

namespace synclint {
namespace {

bool config(std::string_view glob, std::string_view path) { return Glob(glob, Glob::Style::Config).matches(path); }
bool gitignore(std::string_view glob, std::string_view path) {
  return Glob(glob, Glob::Style::Gitignore).matches(path);
}

TEST(Glob, StarNeverCrossesASlashInEitherStyle) {
  EXPECT_TRUE(config("src/*.py", "src/a.py"));
  EXPECT_FALSE(config("src/*.py", "src/sub/a.py"));
  EXPECT_TRUE(gitignore("src/*.py", "src/a.py"));
  EXPECT_FALSE(gitignore("src/*.py", "src/sub/a.py"));
  EXPECT_FALSE(config("a?b", "a/b"));
  EXPECT_TRUE(gitignore("[ab].log", "x/b.log"));
  EXPECT_FALSE(gitignore("[ab].log", "x/c.log"));
}

TEST(Glob, ConfigUnanchoredMatchesAnyComponentAndAllBelowIt) {
  EXPECT_TRUE(config("build", "build"));
  EXPECT_TRUE(config("build", "a/build/x.py"));  // inside a matching folder
  EXPECT_FALSE(config("build", "a/builder/x.py"));
  EXPECT_TRUE(config("*.py", "a/b/c.py"));
  EXPECT_TRUE(config("**", "a.py"));
  EXPECT_FALSE(config("**", ""));
}

TEST(Glob, GitignoreUnanchoredMatchesTheWholeRestAtAnyDepth) {
  EXPECT_TRUE(gitignore("build", "build"));
  EXPECT_TRUE(gitignore("build", "a/build"));
  EXPECT_FALSE(gitignore("build", "a/build/x.py"));  // the walk skips the folder itself
  EXPECT_TRUE(gitignore("*.py", "a/b/c.py"));
}

TEST(Glob, AnchoringDiffersAtTheEnds) {
  // Configuration: "./" and slashes at either end are dropped; any '/' anchors.
  EXPECT_TRUE(config("./src/m.py", "src/m.py"));
  EXPECT_TRUE(config("src/", "src/m.py"));
  EXPECT_FALSE(config("src/", "lib/src/m.py"));
  EXPECT_TRUE(config("/src", "src/m.py"));
  // gitignore: a leading or inner '/' anchors, and the whole path must match.
  EXPECT_TRUE(gitignore("/src", "src"));
  EXPECT_FALSE(gitignore("/src", "lib/src"));
  EXPECT_FALSE(gitignore("/src", "src/m.py"));
  EXPECT_TRUE(gitignore("doc/*.md", "doc/a.md"));
  EXPECT_FALSE(gitignore("doc/*.md", "x/doc/a.md"));
  EXPECT_TRUE(gitignore("a//b", "a/b"));
}

TEST(Glob, DoubleStar) {
  EXPECT_TRUE(config("**/test_*.py", "test_a.py"));
  EXPECT_TRUE(config("a/**/c.py", "a/x/y/c.py"));
  EXPECT_FALSE(config("a/**/c.py", "b/x/c.py"));
  EXPECT_TRUE(gitignore("a/**/c.py", "a/c.py"));
  EXPECT_TRUE(gitignore("**/logs", "x/y/logs"));
  EXPECT_FALSE(gitignore("**/logs", "x/logs/a"));
  // A trailing "**": what is inside for gitignore, the folder too for the configuration.
  EXPECT_TRUE(gitignore("out/**", "out/a/b"));
  EXPECT_FALSE(gitignore("out/**", "out"));
  EXPECT_TRUE(config("out/**", "out"));
  EXPECT_TRUE(config("out/**", "out/a/b"));
}

TEST(Glob, DotComponentsAndEmptyGlobs) {
  EXPECT_TRUE(config("src/m.py", "./src/./m.py"));  // "." components of the path are dropped
  EXPECT_FALSE(gitignore("src/m.py", "./src/m.py"));
  EXPECT_FALSE(config("", "a.py"));
  EXPECT_FALSE(config("/", "a.py"));
  EXPECT_FALSE(gitignore("/x", ""));
  EXPECT_EQ(Glob::split_path("a//./b/", Glob::Style::Config), (std::vector<std::string_view>{"a", "b"}));
  EXPECT_EQ(Glob::split_path("a//./b/", Glob::Style::Gitignore), (std::vector<std::string_view>{"a", ".", "b"}));
}

}  // namespace
}  // namespace synclint
