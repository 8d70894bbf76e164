// Every format's output for the sample report, compared byte for byte with tests/golden/expected/.
// On a difference the test prints a unified diff; SYNCLINT_UPDATE_GOLDEN=1 rewrites the expected files.
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "emit/emit.h"
#include "sample_report.h"

namespace synclint {
namespace {

namespace fs = std::filesystem;

struct GoldenCase {
  std::string file;
  emit::Format format;
  std::function<void(emit::Options&)> adjust;
};

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void write_file(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary);
  out << text;
}

std::string unified_diff(const fs::path& expected, const fs::path& actual) {
  const std::string command = "diff -u '" + expected.string() + "' '" + actual.string() + "' 2>&1";
  std::string out;
  if (FILE* pipe = popen(command.c_str(), "r")) {
    char buffer[4096];
    while (std::size_t n = std::fread(buffer, 1, sizeof buffer, pipe)) out.append(buffer, n);
    pclose(pipe);
  }
  return out.empty() ? "(diff -u produced no output; compare the two files by hand)" : out;
}

class Golden : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(Golden, MatchesExpectedFile) {
  const GoldenCase& c = GetParam();
  emit::Options options = testing::sample_options();
  if (c.adjust) c.adjust(options);
  std::ostringstream out;
  emit::write(c.format, out, testing::sample_report(), testing::sample_catalog(), options);

  const fs::path expected = fs::path(SYNCLINT_SOURCE_DIR) / "tests/golden/expected" / c.file;
  const fs::path actual = fs::path(SYNCLINT_BINARY_DIR) / "tests/golden/actual" / c.file;
  write_file(actual, out.str());
  const char* update = std::getenv("SYNCLINT_UPDATE_GOLDEN");
  if (update != nullptr && std::string(update) == "1") {
    write_file(expected, out.str());
    std::cout << "updated " << expected << "\n";
    return;
  }
  ASSERT_TRUE(fs::exists(expected)) << expected << " is missing. Create it with:\n"
                                    << "  SYNCLINT_UPDATE_GOLDEN=1 ctest -R Golden\n";
  if (read_file(expected) != out.str()) {
    ADD_FAILURE() << c.file << " differs from the golden output (- expected, + actual):\n"
                  << unified_diff(expected, actual)
                  << "If the change is intended, regenerate the goldens and review the diff in git:\n"
                  << "  SYNCLINT_UPDATE_GOLDEN=1 ctest -R Golden\n";
  }
}

INSTANTIATE_TEST_SUITE_P(
    Formats, Golden,
    ::testing::Values(GoldenCase{"report.txt", emit::Format::Text, {}},
                      GoldenCase{"report.compact.txt", emit::Format::Text,
                                 [](emit::Options& o) { o.show_source = false; }},
                      GoldenCase{"report.statistics.txt", emit::Format::Text,
                                 [](emit::Options& o) { o.statistics = true; }},
                      GoldenCase{"report.json", emit::Format::Json, {}},
                      GoldenCase{"report.sarif", emit::Format::Sarif, {}},
                      GoldenCase{"report.github.txt", emit::Format::Github, {}},
                      GoldenCase{"report.junit.xml", emit::Format::Junit, {}}),
    [](const ::testing::TestParamInfo<GoldenCase>& info) {
      std::string name;
      for (char ch : info.param.file) name += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
      return name;
    });

}  // namespace
}  // namespace synclint
