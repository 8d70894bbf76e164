#include "engine/discover.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "temp_tree.h"

namespace synclint::engine {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::UnorderedElementsAre;

// Runs discovery from inside the tree so display paths are relative and short.
class DiscoverTest : public ::testing::Test {
 protected:
  void SetUp() override {
    old_ = std::filesystem::current_path();
    std::filesystem::current_path(t.root());
  }
  void TearDown() override { std::filesystem::current_path(old_); }

  std::vector<std::string> paths(const Discovery& d) {
    std::vector<std::string> out;
    for (const auto& f : d.files) out.push_back(f.path);
    return out;
  }

  testing::TempTree t;
  std::filesystem::path old_;
};

TEST_F(DiscoverTest, WalksFoldersForPythonFilesInAStableOrder) {
  t.write("pkg/b.py", "");
  t.write("pkg/a.py", "");
  t.write("pkg/sub/c.py", "");
  t.write("pkg/notes.txt", "");
  t.write("pkg/native.cpp", "");
  auto d = discover({"pkg"});
  // C++ sources are candidates where the C++ front-end is built (the engine keeps those a database lists).
  std::vector<std::string> expected = {"pkg/a.py", "pkg/b.py", "pkg/native.cpp", "pkg/sub/c.py"};
  if (!frontend_available(Language::Cxx)) expected.erase(expected.begin() + 2);
  EXPECT_EQ(paths(d), expected);
  EXPECT_THAT(d.errors, IsEmpty());
  auto dot = discover({});
  EXPECT_EQ(paths(dot), expected) << "no path means '.'";
}

TEST_F(DiscoverTest, SkipsVcsEnvironmentsAndBuildFolders) {
  t.write("main.py", "");
  for (const char* dir : {".git", "build", "dist", "__pycache__", "node_modules", ".tox", ".mypy_cache",
                          "site-packages", ".venv", "venv"})
    t.write(std::string(dir) + "/x.py", "");
  t.write("myenv/pyvenv.cfg", "home = /usr/bin\n");
  t.write("myenv/lib/y.py", "");
  t.write("env/bin/activate", "");
  t.write("env/z.py", "");
  t.write("environment/ok.py", "");
  EXPECT_THAT(paths(discover({"."})), ElementsAre("environment/ok.py", "main.py"));
}

TEST_F(DiscoverTest, NamedFoldersAndFilesAreAlwaysTaken) {
  t.write("build/gen.py", "");
  t.write("script", "print(1)\n");
  auto d = discover({"build", "script"});
  EXPECT_THAT(paths(d), ElementsAre("build/gen.py", "script"));
  EXPECT_EQ(d.files[1].language, Language::Python) << "a named file without extension is Python";
  EXPECT_TRUE(d.files[1].named);
  EXPECT_FALSE(d.files[0].named);
}

TEST_F(DiscoverTest, RespectsNestedGitignoreWithNegation) {
  t.mkdir(".git");
  t.write(".gitignore", "generated/\n*_pb2.py\n");
  t.write("generated/x.py", "");
  t.write("api_pb2.py", "");
  t.write("main.py", "");
  t.write("sub/.gitignore", "!keep_pb2.py\nlocal.py\n");
  t.write("sub/keep_pb2.py", "");
  t.write("sub/drop_pb2.py", "");
  t.write("sub/local.py", "");
  t.write("sub/ok.py", "");
  EXPECT_THAT(paths(discover({"."})), ElementsAre("main.py", "sub/keep_pb2.py", "sub/ok.py"));
  // Walking a sub-folder still applies the repository's ignore files above it.
  EXPECT_THAT(paths(discover({"sub"})), ElementsAre("sub/keep_pb2.py", "sub/ok.py"));
}

TEST_F(DiscoverTest, ExcludeCallbackPrunesFilesAndFolders) {
  t.write("a.py", "");
  t.write("skip/b.py", "");
  t.write("c_test.py", "");
  ExcludeFn excluded = [](const std::filesystem::path& p, bool) {
    return p.filename() == "skip" || p.filename() == "c_test.py";
  };
  EXPECT_THAT(paths(discover({"."}, excluded)), ElementsAre("a.py"));
  EXPECT_THAT(paths(discover({"c_test.py"}, excluded)), ElementsAre("c_test.py")) << "named files are kept";
}

TEST_F(DiscoverTest, MissingPathIsAFatalError) {
  t.write("a.py", "");
  auto d = discover({"a.py", "missing.py"});
  EXPECT_THAT(paths(d), ElementsAre("a.py"));
  ASSERT_EQ(d.errors.size(), 1u);
  EXPECT_EQ(d.errors[0].path, "missing.py");
  EXPECT_TRUE(d.errors[0].fatal);
  EXPECT_THAT(d.errors[0].message, ::testing::HasSubstr("no such file"));
}

TEST_F(DiscoverTest, SymlinkLoopsAreReportedNotFollowedForever) {
  t.write("top/a.py", "");
  std::filesystem::create_directory_symlink(".", t.path("top/up"));
  std::filesystem::create_symlink("self.py", t.path("top/self.py"));
  auto d = discover({"top"});
  EXPECT_THAT(paths(d), ElementsAre("top/a.py"));
  std::vector<std::string> errors;
  for (const auto& e : d.errors) {
    EXPECT_FALSE(e.fatal) << e.path;
    errors.push_back(e.path);
  }
  EXPECT_THAT(errors, UnorderedElementsAre("top/self.py", "top/up"));
}

TEST_F(DiscoverTest, DanglingSymlinkIsAWarningAndDuplicatesAreDropped) {
  t.write("real/a.py", "");
  std::filesystem::create_symlink("nowhere.py", t.path("real/broken.py"));
  std::filesystem::create_symlink("a.py", t.path("real/alias.py"));
  auto d = discover({"real", "real/a.py"});
  EXPECT_EQ(paths(d).size(), 1u) << "a.py and its alias are one file";
  ASSERT_EQ(d.errors.size(), 1u);
  EXPECT_EQ(d.errors[0].path, "real/broken.py");
  EXPECT_FALSE(d.errors[0].fatal);
  EXPECT_THAT(d.errors[0].message, ::testing::HasSubstr("dangling"));
}

TEST_F(DiscoverTest, NamedFifoIsAnErrorNotAHang) {
  ASSERT_EQ(::mkfifo(t.path("pipe.py").c_str(), 0600), 0);
  auto d = discover({"pipe.py"});
  EXPECT_THAT(d.files, IsEmpty());
  ASSERT_EQ(d.errors.size(), 1u);
  EXPECT_TRUE(d.errors[0].fatal);
  EXPECT_THAT(d.errors[0].message, ::testing::HasSubstr("not a regular file"));
}

TEST(Languages, ByExtension) {
  EXPECT_EQ(language_of("a/b.py"), Language::Python);
  EXPECT_EQ(language_of("x.cc"), Language::Cxx);
  EXPECT_EQ(language_of("x.h"), Language::Cxx);
  EXPECT_EQ(language_of("x.txt"), std::nullopt);
  EXPECT_TRUE(frontend_available(Language::Python));
}

}  // namespace
}  // namespace synclint::engine
