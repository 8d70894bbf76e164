#include <gtest/gtest.h>

#include "emit_test_util.h"

namespace synclint::emit {
namespace {

using testing::make_finding;
using testing::render;

TEST(Github, WarningAnnotation) {
  Report report;
  report.findings = {make_finding("src/t.py", 7, 18, 29, "`loss.item()` waits")};
  EXPECT_EQ(render(Format::Github, report),
            "::warning file=src/t.py,line=7,col=18,endLine=7,endColumn=29,title=SYNC001 tensor-item::`loss.item()` waits\n");
}

TEST(Github, NotesAreNoticesAndErrorsAreErrors) {
  Report report;
  Finding note = make_finding("a.py", 1, 1, 2);
  note.severity = Severity::Note;
  Finding error = make_finding("a.py", 2, 1, 2);
  error.severity = Severity::Error;
  report.findings = {note, error};
  report.errors = {FileError{"b.py", "invalid syntax", true, Position{3, 4}},
                   FileError{"c.py", "too large", false, std::nullopt}};
  const std::string out = render(Format::Github, report);
  EXPECT_NE(out.find("::notice file=a.py,line=1,"), std::string::npos) << out;
  EXPECT_NE(out.find("::error file=a.py,line=2,"), std::string::npos) << out;
  EXPECT_NE(out.find("::error file=b.py,line=3,col=4,title=synclint::invalid syntax\n"), std::string::npos) << out;
  EXPECT_NE(out.find("::warning file=c.py,title=synclint::too large\n"), std::string::npos) << out;
}

TEST(Github, EscapesDataAndProperties) {
  Report report;
  Finding f = make_finding("dir,x/a:b%.py", 1, 1, 2, "100% of steps,\r\nnext: line");
  f.rule_name = "name:with,comma";
  report.findings = {f};
  const std::string out = render(Format::Github, report);
  EXPECT_EQ(out,
            "::warning file=dir%2Cx/a%3Ab%25.py,line=1,col=1,endLine=1,endColumn=2,"
            "title=SYNC001 name%3Awith%2Ccomma::100%25 of steps,%0D%0Anext: line\n");
}

TEST(Github, RelatedFixAndCostGoIntoTheMessage) {
  Report report;
  report.has_costs = true;
  Finding f = make_finding("a.py", 3, 1, 2, "m");
  f.related = {{testing::range("a.py", 1, 5, 1, 8), "loop"}};
  f.fix = "do x";
  report.findings = {f};
  EXPECT_EQ(render(Format::Github, report),
            "::warning file=a.py,line=3,col=1,endLine=3,endColumn=2,title=SYNC001 tensor-item::"
            "m%0Aa.py:1:5: loop%0Afix: do x%0Acost: never ran under the probe\n");
}

TEST(Github, EmptyReportWritesNothing) { EXPECT_EQ(render(Format::Github, Report{}), ""); }

TEST(Github, UnknownPositionsAreLeftOut) {
  Report report;
  report.findings = {make_finding("a.py", 0, 0, 0)};
  EXPECT_EQ(render(Format::Github, report),
            "::warning file=a.py,title=SYNC001 tensor-item::`x.item()` waits for the GPU\n");
}

}  // namespace
}  // namespace synclint::emit
