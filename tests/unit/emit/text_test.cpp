#include <gtest/gtest.h>

#include <random>

#include "emit/detail.h"
#include "emit_test_util.h"

namespace synclint::emit {
namespace {

using detail::render_snippet;
using testing::count;
using testing::make_finding;
using testing::options_with_source;
using testing::render;

// --- caret alignment -----------------------------------------------------------------------------

TEST(Snippet, CaretSpansTheRange) {
  const auto s = render_snippet("    total += loss.item()", 14, 25);
  EXPECT_EQ(s.source, "    total += loss.item()");
  EXPECT_EQ(s.marker, std::string(13, ' ') + "^" + std::string(10, '~'));
}

TEST(Snippet, TabsExpandToTheSameColumnsInBothLines) {
  // Column 3 is 'x' after two tabs: display column 16.
  const auto s = render_snippet("\t\tx.item()", 3, 11);
  EXPECT_EQ(s.source, std::string(16, ' ') + "x.item()");
  EXPECT_EQ(s.marker, std::string(16, ' ') + "^" + std::string(7, '~'));
  // A tab after text advances to the next tab stop, not by eight.
  const auto t = render_snippet("ab\tc", 4, 5);
  EXPECT_EQ(t.source, "ab      c");
  EXPECT_EQ(t.marker, "        ^");
}

TEST(Snippet, ColumnsCountCodePointsNotBytes) {
  // "é" is two bytes, one column; the caret under "loss" must not shift.
  const auto s = render_snippet("f\"pérte {loss}\"", 10, 14);
  EXPECT_EQ(s.marker, "         ^~~~");
}

TEST(Snippet, WideCharactersTakeTwoCells) {
  // Each CJK character is one code point but two terminal cells.
  const auto s = render_snippet("print(\"損失\", loss)", 13, 17);
  EXPECT_EQ(s.marker, std::string(14, ' ') + "^~~~");
  const auto under_wide = render_snippet("x = \"損\"", 6, 7);
  EXPECT_EQ(under_wide.marker, "     ^~");
}

TEST(Snippet, EmptyOrReversedRangeGetsOneCaret) {
  EXPECT_EQ(render_snippet("abc", 2, 2).marker, " ^");
  EXPECT_EQ(render_snippet("abc", 3, 1).marker, "  ^");
}

TEST(Snippet, RangeToEndOfLineWhenItContinues) {
  EXPECT_EQ(render_snippet("if (a and", 4, std::nullopt).marker, "   ^~~~~~");
}

TEST(Snippet, CaretPastTheEndOfTheLine) {
  EXPECT_EQ(render_snippet("ab", 3, 4).marker, "  ^");
  EXPECT_EQ(render_snippet("ab", 9, 12).marker, "  ^");
}

TEST(Snippet, ControlCharactersAndInvalidUtf8ShowAsReplacement) {
  const auto s = render_snippet(std::string("a\x1b[31mb\xff") + "c", 9, 10);
  EXPECT_EQ(s.source.find('\x1b'), std::string::npos);
  EXPECT_EQ(s.source, "a\xEF\xBF\xBD[31mb\xEF\xBF\xBD" "c");
  EXPECT_EQ(s.marker, "        ^");
}

TEST(Snippet, LongLinesAreCutAroundTheCaret) {
  const std::string line = std::string(1000, 'a') + "loss.item()" + std::string(1000, 'b');
  const auto s = render_snippet(line, 1001, 1012, 120);
  EXPECT_TRUE(s.source.starts_with("...")) << s.source.substr(0, 10);
  EXPECT_TRUE(s.source.ends_with("...")) << s.source;
  EXPECT_LE(s.source.size(), 126u);
  const std::size_t caret = s.marker.find('^');
  ASSERT_NE(caret, std::string::npos);
  EXPECT_EQ(s.source.substr(caret, 11), "loss.item()");
  EXPECT_EQ(s.marker.substr(caret), "^" + std::string(10, '~'));
}

// The snippet by its definition: every cell of the line laid out first, then the window around the marker.
detail::Snippet snippet_by_definition(std::string_view line, std::uint32_t first_column,
                                      std::optional<std::uint32_t> end_column, std::size_t max_width) {
  std::vector<std::pair<std::string, std::size_t>> cells;  // text, width
  std::size_t column = 0;
  for (const detail::CodePoint& cp : detail::decode_utf8(line)) {
    std::string text;
    std::size_t width = 1;
    if (cp.valid && cp.value == '\t') {
      width = 8 - column % 8;
      text.assign(width, ' ');
    } else if (!cp.valid || cp.value < 0x20 || cp.value == 0x7F || (cp.value >= 0x80 && cp.value < 0xA0)) {
      detail::append_utf8(text, 0xFFFD);
    } else {
      text.assign(line.substr(cp.offset, cp.size));
      width = static_cast<std::size_t>(detail::display_width(cp.value));
    }
    column += width;
    cells.emplace_back(text, width);
  }
  const std::size_t n = cells.size();
  const std::size_t first = std::min<std::size_t>(first_column > 0 ? first_column - 1 : 0, n);
  std::size_t last = end_column ? std::min<std::size_t>(*end_column > 0 ? *end_column - 1 : 0, n) : n;
  if (last <= first) last = first + 1;
  std::vector<std::size_t> start(n + 1, 0);
  for (std::size_t i = 0; i < n; ++i) start[i + 1] = start[i] + cells[i].second;
  std::size_t from = 0, to = n;
  if (start[n] > max_width) {
    const std::size_t window_start = start[first] > 60 ? start[first] - 60 : 0;
    while (from < n && start[from] < window_start) ++from;
    to = from;
    while (to < n && start[to + 1] - start[from] <= max_width) ++to;
  }
  detail::Snippet out;
  if (from > 0) out.source += "...", out.marker += "   ";
  bool placed = false;
  for (std::size_t i = from; i < to; ++i) {
    out.source += cells[i].first;
    const std::size_t w = cells[i].second;
    if (i >= first && i < last && !placed && w > 0) {
      out.marker += '^' + std::string(w - 1, '~');
      placed = true;
    } else {
      out.marker.append(w, i >= first && i < last && placed ? '~' : ' ');
    }
  }
  if (to < n) out.source += "...";
  if (!placed) out.marker += '^';
  while (!out.marker.empty() && out.marker.back() == ' ') out.marker.pop_back();
  return out;
}

// render_snippet reads a line only up to what it shows: its snippets are those of the definition on random
// lines of tabs, wide, zero-width and control characters and invalid bytes, cut or not (fixed seed).
TEST(Snippet, ReadsOnlyWhatItShowsAndShowsWhatTheDefinitionDoes) {
  const std::vector<std::string> pieces = {"a", "\t", "\xc3\xa9", "\xe6\x90\x8d", "\xcc\x81", "\x01", "\xff", " "};
  std::mt19937 random(11);
  for (int k = 0; k < 20000; ++k) {
    std::string line;
    for (std::size_t i = random() % 120; i > 0; --i) line += pieces[random() % pieces.size()];
    const auto first = static_cast<std::uint32_t>(random() % 130);
    std::optional<std::uint32_t> end;
    if (random() % 4 != 0) end = static_cast<std::uint32_t>(random() % 140);
    const std::size_t width = 1 + random() % 90;
    const detail::Snippet got = render_snippet(line, first, end, width), want = snippet_by_definition(line, first, end, width);
    ASSERT_EQ(got.source, want.source) << k;
    ASSERT_EQ(got.marker, want.marker) << k;
  }
  // Many snippets of one line through one SnippetStart, in column order and in any order, with any widths:
  // the snippets rendered from the line's start.
  for (int k = 0; k < 2000; ++k) {
    std::string line;
    for (std::size_t i = random() % 400; i > 0; --i) line += pieces[random() % pieces.size()];
    detail::SnippetStart start;
    std::uint32_t first = 0;
    for (int n = 0; n < 30; ++n) {
      first = k % 2 ? first + static_cast<std::uint32_t>(random() % 20) : static_cast<std::uint32_t>(random() % 420);
      const std::optional<std::uint32_t> end = first + static_cast<std::uint32_t>(random() % 8);
      const std::size_t width = 1 + random() % 90;
      const detail::Snippet got = render_snippet(line, first, end, width, &start), want = render_snippet(line, first, end, width);
      ASSERT_EQ(got.source, want.source) << k << " " << n;
      ASSERT_EQ(got.marker, want.marker) << k << " " << n;
    }
  }
  // A marker near the start of a line of 50 MB: what is shown, without reading the rest.
  const std::string huge = "x.item()" + std::string(50u << 20, 'a');
  const detail::Snippet s = render_snippet(huge, 1, 9);
  EXPECT_EQ(s.source, huge.substr(0, 200) + "...");
  EXPECT_EQ(s.marker, "^~~~~~~~");
}

// --- whole output ----------------------------------------------------------------------------------

TEST(Text, FindingLineSourceAndCaret) {
  Report report;
  report.files_checked = 1;
  report.findings = {make_finding("t.py", 2, 11, 19)};
  const std::string out = render(Format::Text, report, options_with_source("t.py", "for x in xs:\n\ttotal += x.item()\n"));
  EXPECT_EQ(out, "t.py:2:11: warning: `x.item()` waits for the GPU [SYNC001 tensor-item]\n"
                 "    2 | " + std::string(8, ' ') + "total += x.item()\n" +
                 "      | " + std::string(17, ' ') + "^" + std::string(7, '~') + "\n" +
                 "\n"
                 "Found 1 finding (1 warning) in 1 file.\n");
}

TEST(Text, CrlfLineEndingsAreNotPrinted) {
  Report report;
  report.findings = {make_finding("t.py", 1, 1, 2)};
  const std::string out = render(Format::Text, report, options_with_source("t.py", "x\r\ny\r\n"));
  EXPECT_NE(out.find("    1 | x\n"), std::string::npos) << out;
}

TEST(Text, NoSnippetWhenSourceIsUnavailableOrOff) {
  Report report;
  report.findings = {make_finding("missing.py", 1, 1, 2)};
  EXPECT_EQ(count(render(Format::Text, report), " | "), 0u);
  report.findings = {make_finding("t.py", 1, 1, 2)};
  emit::Options o = options_with_source("t.py", "x = 1\n");
  o.show_source = false;
  EXPECT_EQ(render(Format::Text, report, o),
            "t.py:1:1: warning: `x.item()` waits for the GPU [SYNC001 tensor-item]\n"
            "Found 1 finding (1 warning) in 0 files.\n");
  // A line past the end of the file has no snippet either.
  report.findings = {make_finding("t.py", 7, 1, 2)};
  EXPECT_EQ(count(render(Format::Text, report, options_with_source("t.py", "x = 1\n")), " | "), 0u);
}

TEST(Text, RelatedFixAndCost) {
  Report report;
  Finding f = make_finding("t.py", 3, 5, 6);
  f.related = {{testing::range("t.py", 1, 1, 1, 4), "inside this loop"}};
  f.fix = "keep it on the GPU";
  f.cost = SiteCost{1234, 12.34, 4.5, 15.06, 0.032};
  report.findings = {f};
  emit::Options o = testing::sample_options();
  o.show_source = false;
  EXPECT_EQ(render(Format::Text, report, o),
            "t.py:3:5: warning: `x.item()` waits for the GPU [SYNC001 tensor-item]\n"
            "t.py:1:1: note: inside this loop\n"
            "  fix: keep it on the GPU\n"
            "  cost: 1,234 calls, host blocked 12.3 ms, GPU idle 4.5 ms, predicted saving 15.1 ms (3.2% of run)\n"
            "Found 1 finding (1 warning) in 0 files.\n");
}

TEST(Text, CostsJoinedButSiteNeverRanAndMissedSites) {
  Report report;
  report.has_costs = true;
  report.findings = {make_finding("t.py", 3, 5, 6)};
  report.missed_by_static = {RuntimeSite{testing::range("d.py", 12, 0, 12, 0), "Loader.next", "cudaStreamSynchronize",
                                         SiteCost{1, 0.004, 0, 0.02, 0.0001}}};
  emit::Options o = testing::sample_options();
  o.show_source = false;
  const std::string out = render(Format::Text, report, o);
  EXPECT_NE(out.find("  cost: never ran under the probe\n"), std::string::npos) << out;
  EXPECT_NE(out.find("Runtime synchronizations missed by static analysis:\n"
                     "  d.py:12: cudaStreamSynchronize in Loader.next: 1 call, host blocked 0.004 ms, GPU idle 0.0 ms, "
                     "predicted saving 0.020 ms (<0.1% of run)\n"),
            std::string::npos)
      << out;
  // Without a joined probe report neither appears.
  report.has_costs = false;
  const std::string plain = render(Format::Text, report, o);
  EXPECT_EQ(plain.find("cost:"), std::string::npos);
  EXPECT_EQ(plain.find("Runtime synchronizations"), std::string::npos);
}

TEST(Text, EmptyReport) {
  Report report;
  report.files_checked = 12;
  EXPECT_EQ(render(Format::Text, report), "All checked: no findings in 12 files.\n");
  report.files_checked = 1;
  EXPECT_EQ(render(Format::Text, report), "All checked: no findings in 1 file.\n");
}

TEST(Text, ErrorsWithAndWithoutPosition) {
  Report report;
  report.files_checked = 2;
  report.errors = {FileError{"bad.py", "invalid syntax", true, Position{3, 7}},
                   FileError{"dir/big.py", "file too large\nskipped", false, std::nullopt}};
  EXPECT_EQ(render(Format::Text, report),
            "bad.py:3:7: error: invalid syntax\n"
            "dir/big.py: warning: file too large skipped\n"
            "No findings in 2 files; 2 errors.\n");
}

TEST(Text, SummaryCountsEachSeverity) {
  Report report;
  report.files_checked = 3;
  Finding note = make_finding("a.py", 1, 1, 2);
  note.severity = Severity::Note;
  Finding error = make_finding("a.py", 2, 1, 2);
  error.severity = Severity::Error;
  report.findings = {make_finding("a.py", 3, 1, 2), note, note, error};
  report.errors = {FileError{"b.py", "unreadable", true, std::nullopt}};
  emit::Options o = testing::sample_options();
  o.show_source = false;
  const std::string out = render(Format::Text, report, o);
  EXPECT_TRUE(out.ends_with("Found 4 findings (1 error, 1 warning, 2 notes) in 3 files; 1 error.\n")) << out;
  EXPECT_NE(out.find("a.py:2:1: error: "), std::string::npos);
  EXPECT_NE(out.find("a.py:1:1: note: "), std::string::npos);
}

TEST(Text, ColourOnlyWhenAsked) {
  Report report = testing::sample_report();
  emit::Options o = testing::sample_options();
  EXPECT_EQ(render(Format::Text, report, o).find('\x1b'), std::string::npos);
  o.color = true;
  const std::string out = render(Format::Text, report, o);
  EXPECT_NE(out.find("\x1b[1msrc/model.py:3:18:\x1b[0m \x1b[1;35mwarning:\x1b[0m"), std::string::npos) << out;
  EXPECT_NE(out.find("\x1b[1;36mnote:\x1b[0m"), std::string::npos);
  EXPECT_NE(out.find("\x1b[1;31merror:\x1b[0m"), std::string::npos);
  EXPECT_NE(out.find("\x1b[34m      |\x1b[0m" + std::string(18, ' ') + "\x1b[1;32m^" + std::string(19, '~') + "\x1b[0m\n"),
            std::string::npos)
      << "only the marker itself is coloured";
}

TEST(Text, MessagesAndPathsStayOnOneLine) {
  Report report;
  report.findings = {make_finding("a.py", 1, 1, 2, "two\nlines\x1b[2J")};
  report.errors = {FileError{"odd\nname.py", "unreadable", true, std::nullopt}};
  emit::Options o = testing::sample_options();
  o.show_source = false;
  const std::string out = render(Format::Text, report, o);
  EXPECT_NE(out.find("warning: two lines [2J [SYNC001"), std::string::npos) << out;
  EXPECT_NE(out.find("\nodd name.py: error: unreadable\n"), std::string::npos) << out;
}

TEST(Text, StatisticsTable) {
  Report report = testing::sample_report();
  emit::Options o = testing::sample_options();
  o.statistics = true;
  const std::string out = render(Format::Text, report, o);
  EXPECT_EQ(out.find("waits for the GPU every step"), std::string::npos) << "statistics replace the findings";
  EXPECT_NE(out.find("2  SYNC001  tensor-item        417.6 ms  `.item()` on a GPU tensor in hot code.\n"),
            std::string::npos)
      << out;
  EXPECT_LT(out.find("SYNC001"), out.find("SYNC005")) << "most frequent first";
  EXPECT_NE(out.find("src/broken.py:3:5: error:"), std::string::npos) << "errors are still listed";
}

}  // namespace
}  // namespace synclint::emit
