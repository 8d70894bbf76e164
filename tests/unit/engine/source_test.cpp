#include "engine/source.h"

#include <sys/stat.h>

#include <gtest/gtest.h>

#include "temp_tree.h"

namespace synclint::engine {
namespace {

TEST(Utf8, AcceptsValidText) {
  EXPECT_EQ(invalid_utf8_offset(""), std::string_view::npos);
  EXPECT_EQ(invalid_utf8_offset("plain ascii text, long enough for the fast path"), std::string_view::npos);
  EXPECT_EQ(invalid_utf8_offset("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80"), std::string_view::npos);
  EXPECT_EQ(invalid_utf8_offset("\xF4\x8F\xBF\xBF"), std::string_view::npos) << "U+10FFFF";
}

TEST(Utf8, RejectsInvalidSequencesAtTheirOffset) {
  EXPECT_EQ(invalid_utf8_offset("abc\xFF"), 3u);
  EXPECT_EQ(invalid_utf8_offset("abcdefghij\x80"), 10u) << "stray continuation byte after the fast path";
  EXPECT_EQ(invalid_utf8_offset("\xC0\xAF"), 0u) << "overlong";
  EXPECT_EQ(invalid_utf8_offset("\xE0\x80\xAF"), 0u) << "overlong";
  EXPECT_EQ(invalid_utf8_offset("\xED\xA0\x80"), 0u) << "surrogate";
  EXPECT_EQ(invalid_utf8_offset("\xF4\x90\x80\x80"), 0u) << "above U+10FFFF";
  EXPECT_EQ(invalid_utf8_offset("x\xE2\x82"), 1u) << "truncated";
  EXPECT_EQ(invalid_utf8_offset("x\xE2(\xAC"), 1u) << "bad continuation";
}

TEST(ReadSource, ReadsTextAndDropsTheByteOrderMark) {
  testing::TempTree t;
  auto p = t.write("a.py", "\xEF\xBB\xBFx = 1\n");
  auto r = read_source(p, "a.py", 1 << 20);
  ASSERT_TRUE(std::holds_alternative<std::string>(r));
  EXPECT_EQ(std::get<std::string>(r), "x = 1\n");
}

TEST(ReadSource, BinaryFileIsAnErrorWithItsPosition) {
  testing::TempTree t;
  auto p = t.write("b.py", std::string("x = 1\nab\0c", 11));
  auto r = read_source(p, "b.py", 1 << 20);
  ASSERT_TRUE(std::holds_alternative<FileError>(r));
  const auto& e = std::get<FileError>(r);
  EXPECT_EQ(e.path, "b.py");
  EXPECT_TRUE(e.fatal);
  EXPECT_NE(e.message.find("binary"), std::string::npos) << e.message;
  ASSERT_TRUE(e.position);
  EXPECT_EQ(e.position->line, 2u);
  EXPECT_EQ(e.position->column, 3u);
}

TEST(ReadSource, InvalidUtf8IsAnError) {
  testing::TempTree t;
  auto p = t.write("u.py", "s = 'caf\xE9'\n");
  auto r = read_source(p, "u.py", 1 << 20);
  ASSERT_TRUE(std::holds_alternative<FileError>(r));
  EXPECT_NE(std::get<FileError>(r).message.find("invalid UTF-8"), std::string::npos);
}

TEST(ReadSource, FilesOverTheLimitAreRefused) {
  testing::TempTree t;
  auto p = t.write("big.py", std::string(2000, '#'));
  auto r = read_source(p, "big.py", 1000);
  ASSERT_TRUE(std::holds_alternative<FileError>(r));
  EXPECT_NE(std::get<FileError>(r).message.find("too large"), std::string::npos);
  EXPECT_TRUE(std::holds_alternative<std::string>(read_source(p, "big.py", 2000)));
}

TEST(ReadSource, FifoIsRefusedWithoutBlocking) {
  testing::TempTree t;
  auto p = t.path("pipe.py");
  ASSERT_EQ(::mkfifo(p.c_str(), 0600), 0);
  auto r = read_source(p, "pipe.py", 1 << 20);
  ASSERT_TRUE(std::holds_alternative<FileError>(r));
  EXPECT_NE(std::get<FileError>(r).message.find("not a regular file"), std::string::npos);
}

TEST(ReadSource, MissingFileAndFolderAreErrors) {
  testing::TempTree t;
  EXPECT_TRUE(std::holds_alternative<FileError>(read_source(t.path("none.py"), "none.py", 100)));
  t.mkdir("dir.py");
  auto r = read_source(t.path("dir.py"), "dir.py", 100);
  ASSERT_TRUE(std::holds_alternative<FileError>(r));
  EXPECT_NE(std::get<FileError>(r).message.find("folder"), std::string::npos);
}

}  // namespace
}  // namespace synclint::engine
