#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>

#include <nlohmann/json.hpp>

#include "commands.h"
#include "core/catalog.h"

namespace synclint::cli {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

struct Result {
  int exit_code = 0;
  std::string out;
  std::string err;
};

// Runs `synclint ARGS...` with only the catalog commands registered, capturing stdout and stderr.
Result run(std::vector<std::string> args) {
  CLI::App app{"synclint", "synclint"};
  app.require_subcommand(1);
  Result result;
  add_catalog_commands(app, result.exit_code);
  std::ostringstream out, err;
  auto* old_out = std::cout.rdbuf(out.rdbuf());
  auto* old_err = std::cerr.rdbuf(err.rdbuf());
  std::vector<const char*> argv{"synclint"};
  for (const auto& a : args) argv.push_back(a.c_str());
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::ParseError& e) {
    result.exit_code = app.exit(e) == 0 ? kExitClean : kExitError;
  }
  std::cout.rdbuf(old_out);
  std::cerr.rdbuf(old_err);
  result.out = out.str();
  result.err = err.str();
  return result;
}

fs::path temp_dir() {
  std::random_device rd;
  fs::path dir = fs::temp_directory_path() / ("synclint-cli-" + std::to_string(rd()) + std::to_string(rd()));
  fs::create_directories(dir);
  return dir;
}

TEST(RulesCommand, TableListsEveryRule) {
  const Result r = run({"rules"});
  EXPECT_EQ(r.exit_code, kExitClean);
  EXPECT_THAT(r.out, ::testing::StartsWith("ID "));
  for (const Rule& rule : Catalog::builtin().rules()) {
    EXPECT_THAT(r.out, ::testing::ContainsRegex(rule.id + " +" + rule.name + " +warning"));
  }
}

TEST(RulesCommand, Json) {
  const Result r = run({"rules", "--format", "json"});
  ASSERT_EQ(r.exit_code, kExitClean);
  const auto json = nlohmann::json::parse(r.out);
  ASSERT_EQ(json.size(), Catalog::builtin().rules().size());
  EXPECT_EQ(json[0]["id"], "SYNC001");
  EXPECT_EQ(json[0]["apis"]["python"]["methods"][0], "item");
  EXPECT_EQ(json[0]["help_uri"], "docs/rules/SYNC001.md");
  EXPECT_EQ(run({"rules", "--format", "yaml"}).exit_code, kExitError);
}

TEST(RulesCommand, MarkdownDirWritesTheGeneratedPages) {
  const fs::path dir = temp_dir();
  std::ofstream(dir / "SYNC999.md") << "a page of a rule that no longer exists";
  std::ofstream(dir / "notes.md") << "not generated";
  const Result r = run({"rules", "--markdown-dir", dir.string()});
  EXPECT_EQ(r.exit_code, kExitClean) << r.err;
  for (const auto& [name, text] : rule_doc_pages(Catalog::builtin())) {
    std::ifstream in(dir / name);
    std::stringstream got;
    got << in.rdbuf();
    EXPECT_EQ(got.str(), text) << name;
  }
  EXPECT_FALSE(fs::exists(dir / "SYNC999.md"));
  EXPECT_TRUE(fs::exists(dir / "notes.md"));
  fs::remove_all(dir);
}

TEST(ExplainCommand, ByIdAndName) {
  const Result by_id = run({"explain", "SYNC007"});
  EXPECT_EQ(by_id.exit_code, kExitClean);
  EXPECT_EQ(by_id.out, Catalog::builtin().find("SYNC007")->markdown());
  EXPECT_EQ(run({"explain", "explicit-synchronize"}).out, by_id.out);
}

TEST(ExplainCommand, UnknownRuleSuggests) {
  const Result r = run({"explain", "tensor-itme"});
  EXPECT_EQ(r.exit_code, kExitError);
  EXPECT_THAT(r.err, HasSubstr("unknown rule 'tensor-itme' (did you mean 'tensor-item'?)"));
  EXPECT_TRUE(r.out.empty());
  EXPECT_EQ(run({"explain"}).exit_code, kExitError);
}

TEST(ConfigCommand, DescribesAndReportsErrors) {
  const fs::path dir = temp_dir();
  std::ofstream(dir / ".synclint.toml") << "ignore = [\"SYNC005\"]\n";
  const Result ok = run({"config", dir.string()});
  EXPECT_EQ(ok.exit_code, kExitClean) << ok.err;
  EXPECT_THAT(ok.out, HasSubstr("ignore = ['SYNC005']"));
  EXPECT_THAT(ok.out, HasSubstr((dir / ".synclint.toml").string()));

  std::ofstream(dir / ".synclint.toml") << "ignroe = [\"SYNC005\"]\n";
  const Result bad = run({"config", dir.string()});
  EXPECT_EQ(bad.exit_code, kExitError);
  EXPECT_THAT(bad.err, HasSubstr("unknown key 'ignroe' (did you mean 'ignore'?)"));

  const Result missing = run({"config", (dir / "nope").string()});
  EXPECT_EQ(missing.exit_code, kExitError);
  EXPECT_THAT(missing.err, HasSubstr("no such file or directory"));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace synclint::cli
