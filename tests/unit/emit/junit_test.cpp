#include <gtest/gtest.h>

#include "emit_test_util.h"

namespace synclint::emit {
namespace {

using testing::count;
using testing::make_finding;
using testing::render;

TEST(Junit, SuitePerFileAndFailurePerFinding) {
  const std::string out = render(Format::Junit, testing::sample_report());
  EXPECT_TRUE(out.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"synclint 1.2.3\" "
                              "tests=\"5\" failures=\"3\" errors=\"1\">\n"))
      << out;
  EXPECT_EQ(count(out, "<testsuite "), 4u);
  EXPECT_EQ(count(out, "<testsuite "), count(out, "</testsuite>"));
  EXPECT_EQ(count(out, "<failure "), 3u);
  EXPECT_EQ(count(out, "<error "), 1u);
  EXPECT_NE(out.find("<testsuite name=\"src/utils/clean.py\" tests=\"1\" failures=\"0\" errors=\"0\">\n"
                     "    <testcase classname=\"src/utils/clean.py\" name=\"no findings\"/>\n"),
            std::string::npos)
      << "a clean file is a passing test case\n"
      << out;
}

TEST(Junit, EscapesMarkupInTextAndAttributes) {
  Report report;
  report.files_checked = 1;
  report.findings = {make_finding("a&b.py", 1, 1, 2, "x < 0 & \"y\" > 'z'\nnext\x01")};
  const std::string out = render(Format::Junit, report);
  EXPECT_NE(out.find("message=\"x &lt; 0 &amp; &quot;y&quot; &gt; &apos;z&apos;&#10;next\xEF\xBF\xBD\""), std::string::npos)
      << out;
  EXPECT_NE(out.find("<testsuite name=\"a&amp;b.py\""), std::string::npos) << out;
  EXPECT_NE(out.find(">a&amp;b.py:1:1: warning: x &lt; 0 &amp; \"y\" &gt; 'z'\nnext\xEF\xBF\xBD [SYNC001"), std::string::npos)
      << out;
  EXPECT_EQ(out.find('\x01'), std::string::npos);
}

TEST(Junit, EmptyReportIsOnePassingCaseForAllFiles) {
  Report report;
  report.files_checked = 7;
  EXPECT_EQ(render(Format::Junit, report),
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<testsuites name=\"synclint 1.2.3\" tests=\"1\" failures=\"0\" errors=\"0\">\n"
            "  <testsuite name=\"synclint\" tests=\"1\" failures=\"0\" errors=\"0\">\n"
            "    <testcase classname=\"synclint\" name=\"7 files without findings\"/>\n"
            "  </testsuite>\n"
            "</testsuites>\n");
  report.files_checked = 0;
  EXPECT_EQ(count(render(Format::Junit, report), "<testcase"), 0u);
}

TEST(Junit, NonFatalErrorsDoNotFail) {
  Report report;
  report.checked_paths = {"a.py"};
  report.errors = {FileError{"a.py", "skipped: too large", false, std::nullopt}};
  const std::string out = render(Format::Junit, report);
  EXPECT_NE(out.find("tests=\"1\" failures=\"0\" errors=\"0\""), std::string::npos) << out;
  EXPECT_NE(out.find("<system-out>warning: skipped: too large</system-out>"), std::string::npos) << out;
}

}  // namespace
}  // namespace synclint::emit
