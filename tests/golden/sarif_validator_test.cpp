// Runs the official SARIF validator (Sarif.Multitool validate) on the SARIF that synclint writes for the
// sample report (with the built-in catalog), an empty report and a report with only input errors. Any
// error or warning the validator reports fails the test; a missing validator fails it too.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "emit/emit.h"
#include "sample_report.h"

namespace synclint {
namespace {

namespace fs = std::filesystem;

const fs::path kValidator = SYNCLINT_SARIF_MULTITOOL;

fs::path output_dir() {
  const fs::path dir = fs::path(SYNCLINT_BINARY_DIR) / "tests/golden/sarif-validation";
  fs::create_directories(dir);
  return dir;
}

// What `Sarif.Multitool validate` said about some files.
struct Validation {
  int status = -1;
  std::string output;
  std::vector<std::string> problems;  // console lines "file(line,col): error|warning SARIFnnnn: ..."
  std::size_t log_results = 0;        // results (errors and warnings) in the validator's own SARIF log
  bool log_read = false;
};

Validation validate(const std::vector<fs::path>& files, const std::string& log_name) {
  Validation v;
  const fs::path log = output_dir() / log_name;
  fs::remove(log);
  std::string command = "'" + kValidator.string() + "' validate";
  for (const fs::path& f : files) command += " '" + f.string() + "'";
  command += " -o '" + log.string() + "' 2>&1";
  std::cout << "$ " << command << "\n";
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return v;
  char buffer[4096];
  while (std::size_t n = std::fread(buffer, 1, sizeof buffer, pipe)) v.output.append(buffer, n);
  const int status = pclose(pipe);
  v.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::cout << v.output;

  static const std::regex problem(R"((error|warning) [A-Z]+[0-9]+: )");
  std::size_t start = 0;
  while (start < v.output.size()) {
    std::size_t end = v.output.find('\n', start);
    if (end == std::string::npos) end = v.output.size();
    const std::string line = v.output.substr(start, end - start);
    if (std::regex_search(line, problem)) v.problems.push_back(line);
    start = end + 1;
  }
  std::ifstream in(log);
  const auto json = nlohmann::json::parse(in, nullptr, false);
  if (in && !json.is_discarded()) {
    v.log_read = true;
    for (const auto& run : json.value("runs", nlohmann::json::array())) {
      v.log_results += run.value("results", nlohmann::json::array()).size();
    }
  }
  return v;
}

fs::path write_sarif(const std::string& name, const Report& report, const emit::Options& options) {
  const fs::path file = output_dir() / name;
  std::ofstream out(file, std::ios::binary);
  emit::write(emit::Format::Sarif, out, report, Catalog::builtin(), options);
  return file;
}

// What `synclint check --format sarif` passes: defaults, except the sources of the sample report.
emit::Options cli_options() {
  emit::Options options;
  options.working_directory = SYNCLINT_SOURCE_DIR;
  options.read_source = testing::sample_reader();
  return options;
}

class SarifValidator : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(fs::exists(kValidator)) << "The SARIF validator is missing: " << kValidator
                                        << "\nRun scripts/setup (it installs @microsoft/sarif-multitool with npm ci).";
    ASSERT_EQ(access(kValidator.c_str(), X_OK), 0)
        << kValidator << " is not executable.\nRun scripts/setup (it sets the execute bit npm ci leaves off).";
  }
};

TEST_F(SarifValidator, NoErrorsAndNoWarnings) {
  ASSERT_FALSE(Catalog::builtin().rules().empty());
  // Without the information URI (where the rule help lives) the validator warns (SARIF2005).
  ASSERT_FALSE(emit::default_information_uri().empty()) << "the source tree's docs/ folder was not found";
  Report errors_only;
  errors_only.files_checked = 1;
  errors_only.errors = {FileError{"src/broken.py", "invalid syntax", true, Position{3, 5}},
                        FileError{"/elsewhere/big.py", "file too large (70 MB), skipped", false, std::nullopt}};
  // Unusual but possible content: paths outside the working directory and with spaces and non-ASCII
  // characters, unknown positions, a rule the catalog does not know, multi-line messages, reversed ranges.
  Report odd;
  odd.files_checked = 3;
  Finding outside = testing::finding("SYNC001", "tensor-item", Severity::Error, testing::range("/opt/x y/ü.py", 2, 4, 2, 9),
                                     "multi-line\nmessage with \"quotes\" and {braces}");
  outside.edits = {{testing::range("/opt/x y/ü.py", 2, 4, 2, 9), "x"}, {testing::range("/opt/x y/ü.py", 0, 0, 0, 0), "y"}};
  Finding unknown = testing::finding("SYNC999", "", Severity::Note, testing::range("../up.py", 0, 0, 0, 0), "");
  Finding reversed = testing::finding("SYNC002", "tensor-tolist", Severity::Warning, testing::range("a.py", 5, 9, 5, 2), "m");
  reversed.related = {{testing::range("a.py", 3, 0, 4, 0), "spans lines."}};
  Finding whole_file = testing::finding("SYNC001", "tensor-item", Severity::Warning, testing::range("src/train.py", 0, 0, 0, 0), "m");
  Finding no_column = testing::finding("SYNC001", "tensor-item", Severity::Warning, testing::range("a.py", 4, 0, 0, 0), "m");
  odd.findings = {outside, unknown, reversed, whole_file, no_column};
  const Validation v = validate({write_sarif("sample.sarif", testing::sample_report(), cli_options()),
                                 write_sarif("empty.sarif", Report{}, cli_options()),
                                 write_sarif("errors.sarif", errors_only, cli_options()),
                                 write_sarif("odd.sarif", odd, cli_options())},
                                "validation.sarif");
  EXPECT_TRUE(v.problems.empty()) << v.problems.size() << " validator errors/warnings, the first:\n" << v.problems[0];
  EXPECT_EQ(v.status, 0) << "the validator exited with " << v.status;
  EXPECT_NE(v.output.find("Analysis completed successfully"), std::string::npos);
  ASSERT_TRUE(v.log_read) << "the validator wrote no readable log";
  EXPECT_EQ(v.log_results, 0u) << "the validator's log lists problems";
}

// The check above can fail: the same report without an information URI draws exactly SARIF2005.
TEST_F(SarifValidator, WarningsAreDetected) {
  emit::Options options = cli_options();
  options.information_uri = "";
  const Validation v = validate({write_sarif("no-information-uri.sarif", testing::sample_report(), options)},
                                "validation-negative.sarif");
  ASSERT_EQ(v.problems.size(), 1u) << v.output;
  EXPECT_NE(v.problems[0].find("warning SARIF2005"), std::string::npos) << v.problems[0];
  EXPECT_EQ(v.log_results, 1u);
}

}  // namespace
}  // namespace synclint
