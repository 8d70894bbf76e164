// Document: incremental edits in each position encoding, clamping, and the column conversions.
#include <gtest/gtest.h>

#include "lsp/document.h"
#include "lsp/protocol.h"

namespace synclint::lsp {
namespace {

ContentChange edit(std::uint32_t l0, std::uint32_t c0, std::uint32_t l1, std::uint32_t c1, std::string text) {
  return ContentChange{Range{{l0, c0}, {l1, c1}}, std::move(text)};
}

TEST(Document, AppliesRangeEditsAcrossLines) {
  Document d("a = 1\nb = 2\nc = 3\n", 1, PositionEncoding::Utf16);
  d.apply(edit(0, 4, 1, 4, "10\nb = 20"));
  EXPECT_EQ(d.text(), "a = 10\nb = 202\nc = 3\n");
  d.apply(edit(2, 0, 3, 0, ""));
  EXPECT_EQ(d.text(), "a = 10\nb = 202\n");
  EXPECT_EQ(d.line_count(), 3u);
}

// The line index kept up to date edit by edit agrees with one built from the text afresh.
TEST(Document, IncrementalLineIndexMatchesAFreshOne) {
  Document d("a\nbb\n\nccc\nd", 1, PositionEncoding::Utf16);
  const ContentChange edits[] = {edit(1, 1, 3, 2, "X\nY\nZ"), edit(0, 0, 0, 0, "\n\n"), edit(4, 0, 6, 0, ""),
                                 edit(2, 1, 2, 1, "q\r\nr"), edit(9, 0, 9, 0, "end\n")};
  for (const ContentChange& e : edits) {
    d.apply(e);
    const Document fresh(d.text(), 1, PositionEncoding::Utf16);
    ASSERT_EQ(d.line_count(), fresh.line_count()) << d.text();
    for (std::uint32_t l = 0; l < d.line_count(); ++l) EXPECT_EQ(d.line(l), fresh.line(l));
  }
}

TEST(Document, WholeTextReplacement) {
  Document d("x", 1, PositionEncoding::Utf16);
  d.apply(ContentChange{std::nullopt, "y\nz"});
  EXPECT_EQ(d.text(), "y\nz");
  EXPECT_EQ(d.line(1), "z");
}

TEST(Document, PositionsPastTheEndAreClamped) {
  Document d("ab\ncd", 1, PositionEncoding::Utf16);
  d.apply(edit(0, 99, 0, 99, "!"));
  EXPECT_EQ(d.text(), "ab!\ncd");
  d.apply(edit(7, 0, 9, 0, "?"));
  EXPECT_EQ(d.text(), "ab!\ncd?");
}

TEST(Document, Utf16CountsSurrogatePairsAsTwo) {
  // "é" is one UTF-16 unit, the emoji two; "x" follows at UTF-16 column 3.
  Document d("\xc3\xa9\xf0\x9f\x98\x80x = 1\n", 1, PositionEncoding::Utf16);
  d.apply(edit(0, 3, 0, 4, "y"));
  EXPECT_EQ(d.text(), "\xc3\xa9\xf0\x9f\x98\x80y = 1\n");
  EXPECT_EQ(d.position_of(0, 2).character, 3u);
}

TEST(Document, Utf32AndUtf8Columns) {
  const std::string line = "\xc3\xa9\xf0\x9f\x98\x80x";
  EXPECT_EQ(encode_column(line, 2, PositionEncoding::Utf32), 2u);
  EXPECT_EQ(encode_column(line, 2, PositionEncoding::Utf8), 6u);
  EXPECT_EQ(byte_of_column(line, 2, PositionEncoding::Utf32), 6u);
  EXPECT_EQ(byte_of_column(line, 3, PositionEncoding::Utf16), 6u);
}

TEST(Uri, RoundTripsPathsWithSpacesAndPercent) {
  const std::string path = "/tmp/my dir/100%/train.py";
  const std::string uri = path_to_uri(path);
  EXPECT_EQ(uri, "file:///tmp/my%20dir/100%25/train.py");
  EXPECT_EQ(uri_to_path(uri), path);
  EXPECT_EQ(uri_to_path("untitled:Untitled-1"), std::nullopt);
  EXPECT_EQ(uri_to_path("file://otherhost/x.py"), std::nullopt);
}

}  // namespace
}  // namespace synclint::lsp
