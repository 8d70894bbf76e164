#include "core/suppressions.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/catalog.h"

namespace synclint {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

constexpr const char* kPath = "train.py";

Finding finding(std::string rule_id, std::uint32_t line, std::string path = kPath) {
  const Rule* rule = Catalog::builtin().find(rule_id);
  Finding f;
  f.rule_id = rule_id;
  f.rule_name = rule != nullptr ? rule->name : "";
  f.range = SourceRange{std::move(path), {line, 5}, {line, 15}};
  return f;
}

// A comment at the end of `line`, starting at column 20.
Comment comment(std::uint32_t line, std::string text) {
  return Comment{{line, 20}, {line, 20 + static_cast<std::uint32_t>(text.size())}, std::move(text)};
}

std::vector<std::string> ids_of(const std::vector<Finding>& findings) {
  std::vector<std::string> out;
  for (const auto& f : findings) out.push_back(f.rule_id + "@" + std::to_string(f.range.begin.line));
  return out;
}

std::vector<std::string> messages_of(const std::vector<Finding>& findings) {
  std::vector<std::string> out;
  for (const auto& f : findings) out.push_back(std::to_string(f.range.begin.line) + ": " + f.message);
  return out;
}

struct Outcome {
  std::vector<Finding> kept;
  std::vector<Finding> unused;
};

Outcome run(Language lang, const std::vector<Comment>& comments, std::vector<Finding> findings) {
  Suppressions s = Suppressions::parse(lang, kPath, comments);
  s.apply(findings);
  return Outcome{findings, s.unused(Catalog::builtin())};
}

TEST(Suppressions, SynclintIgnoreWithIdsAndNames) {
  const Outcome r = run(Language::Python, {comment(3, "# synclint: ignore[SYNC001, tensor-formatting]")},
                    {finding("SYNC001", 3), finding("SYNC005", 3), finding("SYNC004", 3), finding("SYNC001", 4)});
  EXPECT_THAT(ids_of(r.kept), ElementsAre("SYNC004@3", "SYNC001@4"));
  EXPECT_THAT(r.unused, IsEmpty());
}

TEST(Suppressions, BareSynclintIgnoreSuppressesAllOnItsLine) {
  const Outcome r = run(Language::Python, {comment(2, "# synclint: ignore")}, {finding("SYNC001", 2), finding("SYNC007", 2)});
  EXPECT_THAT(r.kept, IsEmpty());
  EXPECT_THAT(r.unused, IsEmpty());
}

TEST(Suppressions, NoqaWithSynclintAndForeignCodes) {
  const Outcome r = run(Language::Python, {comment(1, "# noqa: E501, SYNC001"), comment(2, "# NOQA:SYNC005 F401")},
                    {finding("SYNC001", 1), finding("SYNC005", 2), finding("SYNC004", 2)});
  EXPECT_THAT(ids_of(r.kept), ElementsAre("SYNC004@2"));
  EXPECT_THAT(r.unused, IsEmpty());
}

TEST(Suppressions, NoqaWithOnlyForeignCodesIsIgnoredAndNeverReported) {
  const Outcome r = run(Language::Python, {comment(1, "# noqa: E501"), comment(2, "# noqa: F401,W291")},
                    {finding("SYNC001", 1)});
  EXPECT_THAT(ids_of(r.kept), ElementsAre("SYNC001@1"));
  EXPECT_THAT(r.unused, IsEmpty());
}

TEST(Suppressions, BareNoqaSuppressesButIsNeverReportedUnused) {
  const Outcome r = run(Language::Python, {comment(1, "# noqa"), comment(5, "# noqa")}, {finding("SYNC001", 1)});
  EXPECT_THAT(r.kept, IsEmpty());
  EXPECT_THAT(r.unused, IsEmpty()) << "the bare noqa on line 5 belongs to other linters";
}

TEST(Suppressions, UnusedSuppressionsAreReportedPerId) {
  const Outcome r = run(Language::Python,
                    {comment(1, "# synclint: ignore[SYNC001, SYNC005]"), comment(2, "# synclint: ignore"),
                     comment(3, "# noqa: SYNC002, E501"), comment(4, "# synclint: ignore[tensor-itme]")},
                    {finding("SYNC001", 1)});
  EXPECT_THAT(r.kept, IsEmpty());
  EXPECT_THAT(messages_of(r.unused),
              ElementsAre("1: unused suppression for SYNC005", "2: unused suppression: no finding on this line",
                          "3: unused suppression for SYNC002",
                          "4: suppression names unknown rule 'tensor-itme' (did you mean 'tensor-item'?)"));
  EXPECT_THAT(r.unused[0].fix, ::testing::StartsWith("remove SYNC005 from the suppression comment"));
  EXPECT_EQ(r.unused[1].fix, "remove the suppression comment");
  EXPECT_THAT(r.unused[2].fix, ::testing::StartsWith("remove SYNC002 from")) << "E501 stays for the other linter";
  for (const auto& f : r.unused) {
    EXPECT_EQ(f.rule_id, "SYNC100");
    EXPECT_EQ(f.rule_name, "unused-suppression");
    EXPECT_EQ(f.severity, Severity::Warning);
    EXPECT_EQ(f.range.path, kPath);
    EXPECT_EQ(f.range.begin.column, 20u) << "points at the comment";
    EXPECT_GT(f.range.end.column, f.range.begin.column);
  }
}

TEST(Suppressions, FileLevel) {
  const Outcome all = run(Language::Python, {comment(1, "# synclint: ignore-file")},
                      {finding("SYNC001", 10), finding("SYNC005", 20)});
  EXPECT_THAT(all.kept, IsEmpty());
  EXPECT_THAT(all.unused, IsEmpty());

  const Outcome some = run(Language::Python, {comment(1, "# synclint: ignore-file[SYNC005, SYNC008]")},
                       {finding("SYNC001", 10), finding("SYNC005", 20)});
  EXPECT_THAT(ids_of(some.kept), ElementsAre("SYNC001@10"));
  EXPECT_THAT(messages_of(some.unused), ElementsAre("1: unused suppression for SYNC008"));

  const Outcome none = run(Language::Python, {comment(1, "# synclint: ignore-file")}, {});
  EXPECT_THAT(messages_of(none.unused), ElementsAre("1: unused file-level suppression: no finding in this file"));
}

TEST(Suppressions, OtherFilesFindingsAreUntouched) {
  const Outcome r = run(Language::Python, {comment(1, "# synclint: ignore-file")}, {finding("SYNC001", 1, "other.py")});
  EXPECT_THAT(ids_of(r.kept), ElementsAre("SYNC001@1"));
  EXPECT_EQ(r.kept[0].range.path, "other.py");
}

TEST(Suppressions, MultiLineFindingSuppressedOnAnyOfItsLines) {
  Finding f = finding("SYNC005", 3);
  f.range.end = {5, 2};
  const Outcome r = run(Language::Python, {comment(5, "# synclint: ignore[SYNC005]")}, {f});
  EXPECT_THAT(r.kept, IsEmpty());
}

TEST(Suppressions, UnusedReportCanItselfBeSilenced) {
  const Outcome r = run(Language::Python, {comment(1, "# synclint: ignore[SYNC001, SYNC100]")}, {});
  EXPECT_THAT(r.unused, IsEmpty());
  const Outcome file = run(Language::Python, {comment(1, "# synclint: ignore-file[unused-suppression]"),
                                          comment(4, "# synclint: ignore[SYNC003]")},
                       {});
  EXPECT_THAT(file.unused, IsEmpty());
}

TEST(Suppressions, CxxNolintForms) {
  const Outcome r = run(Language::Cxx,
                    {comment(1, "// NOLINT(SYNC001)"), comment(2, "// NOLINTNEXTLINE(SYNC007, bugprone-foo)"),
                     comment(5, "// synclint: ignore[SYNC008]"), comment(6, "// NOLINT(readability-x)"),
                     comment(7, "// NOLINT"), comment(8, "/* NOLINT(tensor-item) */")},
                    {finding("SYNC001", 1), finding("SYNC007", 3), finding("SYNC007", 2), finding("SYNC008", 5),
                     finding("SYNC001", 6), finding("SYNC003", 7)});
  EXPECT_THAT(ids_of(r.kept), ElementsAre("SYNC007@2", "SYNC001@6"));
  EXPECT_THAT(messages_of(r.unused), ElementsAre("8: unused suppression for tensor-item"));
  EXPECT_EQ(Suppressions::parse(Language::Cxx, kPath, {comment(2, "// NOLINTNEXTLINE(SYNC007)")}).all()[0].line, 3u);
}

TEST(Suppressions, PythonIgnoresCxxFormsAndViceVersa) {
  EXPECT_THAT(Suppressions::parse(Language::Python, kPath, {comment(1, "# NOLINT(SYNC001)")}).all(), IsEmpty());
  EXPECT_THAT(Suppressions::parse(Language::Cxx, kPath, {comment(1, "// noqa: SYNC001")}).all(), IsEmpty());
}

TEST(Suppressions, ParsedFields) {
  const auto s = Suppressions::parse(Language::Python, kPath,
                                     {comment(7, "# synclint: ignore[SYNC001]"), comment(1, "# synclint: ignore-file")});
  ASSERT_EQ(s.all().size(), 2u);
  EXPECT_EQ(s.all()[0].line, 7u);
  EXPECT_THAT(s.all()[0].ids, ElementsAre("SYNC001"));
  EXPECT_FALSE(s.all()[0].file_level);
  EXPECT_EQ(s.all()[0].where, (Position{7, 20}));
  EXPECT_EQ(s.all()[1].line, 0u);
  EXPECT_TRUE(s.all()[1].file_level);
  EXPECT_THAT(s.all()[1].ids, IsEmpty());
  EXPECT_THAT(Suppressions::parse(Language::Python, kPath, {comment(1, "# just a comment about noqa-like things")}).all(),
              IsEmpty());
}

TEST(Suppressions, EdgeForms) {
  // `# noqa:` with no codes is a bare noqa (flake8 reads it so); other words after NOLINT are not NOLINT.
  EXPECT_FALSE(Suppressions::parse(Language::Python, kPath, {comment(1, "# noqa:")}).all().at(0).report_unused);
  EXPECT_THAT(Suppressions::parse(Language::Cxx, kPath, {comment(1, "// NOLINTLATER(SYNC001)")}).all(), IsEmpty());
  // An unclosed list still names its ids; the word after `synclint:` must be a directive.
  EXPECT_THAT(Suppressions::parse(Language::Python, kPath, {comment(1, "# synclint: ignore[SYNC001")}).all().at(0).ids,
              ElementsAre("SYNC001"));
  EXPECT_THAT(Suppressions::parse(Language::Python, kPath, {comment(1, "# synclint: ignored")}).all(), IsEmpty());
  // Two directives in one comment.
  EXPECT_EQ(Suppressions::parse(Language::Python, kPath, {comment(1, "# synclint: ignore[SYNC001]  # noqa: SYNC002")})
                .all()
                .size(),
            2u);
}

TEST(Suppressions, HugeCommentsDoNotBreakParsing) {
  std::string ids = "# synclint: ignore[";
  for (int i = 0; i < 200000; ++i) ids += "SYNC001, ";
  ids += "]";
  const auto s = Suppressions::parse(Language::Python, kPath, {comment(1, ids)});
  ASSERT_EQ(s.all().size(), 1u);
  EXPECT_EQ(s.all()[0].ids.size(), 200000u);
  const std::string noqa = "# noqa: " + std::string(1 << 20, 'E');
  EXPECT_THAT(Suppressions::parse(Language::Python, kPath, {comment(1, noqa)}).all(), IsEmpty());
}

// An unknown id longer than 64 bytes is quoted by its start, cut at a character boundary, and its length;
// one of 64 bytes is quoted whole.
TEST(Suppressions, ALongUnknownIdIsQuotedByItsStartAndLength) {
  std::string accents;
  for (int i = 0; i < 5000; ++i) accents += "\xc3\xa9";  // é
  const std::string id64(64, 'Q');
  const Outcome r = run(Language::Python,
                        {comment(1, "# synclint: ignore[a" + accents + "]"), comment(2, "# synclint: ignore[" + id64 + "]")},
                        {});
  std::string start = "a";
  for (int i = 0; i < 23; ++i) start += "\xc3\xa9";  // 47 bytes: the 48th would split a character
  EXPECT_THAT(messages_of(r.unused), ElementsAre("1: suppression names unknown rule '" + start + "...' (10001 bytes)",
                                                 "2: suppression names unknown rule '" + id64 + "'"));
}

// An unclosed list ends where the next directive of its kind starts: a comment of many unclosed directives
// names each id once (not every id after it: quadratic in the comment's length, which a fuzzer found).
TEST(Suppressions, AnUnclosedListEndsAtTheNextDirective) {
  const auto python = Suppressions::parse(Language::Python, kPath,
                                          {comment(1, "# synclint: ignore[SYNC001 synclint: ignore[SYNC005")});
  ASSERT_EQ(python.all().size(), 2u);
  EXPECT_THAT(python.all()[0].ids, ElementsAre("SYNC001"));
  EXPECT_THAT(python.all()[1].ids, ElementsAre("SYNC005"));
  const auto cxx = Suppressions::parse(Language::Cxx, kPath, {comment(1, "// NOLINT(SYNC001 NOLINT(SYNC005")});
  ASSERT_EQ(cxx.all().size(), 2u);
  EXPECT_THAT(cxx.all()[0].ids, ElementsAre("SYNC001"));
  EXPECT_THAT(cxx.all()[1].ids, ElementsAre("SYNC005"));
  std::string many = "#";
  for (int i = 0; i < 5000; ++i) many += " synclint: ignore[SYNC001";
  const auto s = Suppressions::parse(Language::Python, kPath, {comment(1, many)});
  ASSERT_EQ(s.all().size(), 5000u);
  std::size_t ids = 0;
  for (const Suppression& d : s.all()) ids += d.ids.size();
  EXPECT_EQ(ids, 5000u);
}

TEST(Suppressions, NolintBeginEndCoversTheLinesBetween) {
  Suppressions s = Suppressions::parse(Language::Cxx, kPath,
                                       {comment(3, "// NOLINTBEGIN(synclint-SYNC001)"), comment(6, "// NOLINTEND(synclint-SYNC001)")});
  ASSERT_EQ(s.all().size(), 1u);
  EXPECT_THAT(s.all()[0].ids, ElementsAre("SYNC001"));
  std::vector<Finding> findings = {finding("SYNC001", 2), finding("SYNC001", 4), finding("SYNC001", 5),
                                   finding("SYNC001", 7)};
  s.apply(findings);
  ASSERT_EQ(findings.size(), 2u);
  EXPECT_EQ(findings[0].range.begin.line, 2u);
  EXPECT_EQ(findings[1].range.begin.line, 7u);
  // Unclosed: to the end of the file.
  Suppressions open = Suppressions::parse(Language::Cxx, kPath, {comment(3, "// NOLINTBEGIN")});
  std::vector<Finding> later = {finding("SYNC007", 900)};
  open.apply(later);
  EXPECT_THAT(later, IsEmpty());
}

}  // namespace
}  // namespace synclint
