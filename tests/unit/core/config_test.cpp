#include "core/config.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <random>

#include "core/catalog.h"

namespace synclint {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// A fresh temporary folder per test, removed afterwards.
class ConfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::random_device rd;
    dir_ = fs::temp_directory_path() / ("synclint-config-" + std::to_string(rd()) + std::to_string(rd()));
    fs::create_directories(dir_);
    dir_ = fs::canonical(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path write(const fs::path& relative, const std::string& text) {
    const fs::path file = dir_ / relative;
    fs::create_directories(file.parent_path());
    std::ofstream(file, std::ios::binary) << text;
    return file;
  }

  std::string error_of(const std::string& name, const std::string& text) {
    try {
      load_config_file(write(name, text), Catalog::builtin());
    } catch (const ConfigError& e) {
      return e.what();
    }
    return "(no error)";
  }

  fs::path dir_;
};

TEST_F(ConfigTest, ReadsEveryKeyFromSynclintToml) {
  const fs::path file = write(".synclint.toml", R"(
select = ["SYNC0", "unused-suppression"]
ignore = ["SYNC012", "tensor-tolist"]
severity = { SYNC001 = "error", tensor-formatting = "note" }
per-file-ignores = { "tests/**" = ["SYNC001"], "scripts/*.py" = ["SYNC"] }
exclude = ["build", "third_party/**"]
hot-functions = ["my_step"]
extra-sync-apis = [
  { rule = "SYNC001", name = "mylib.metrics.to_float" },
  { rule = "explicit-synchronize", name = "barrier", kind = "methods" },
  { rule = "SYNC007", name = "mylib.cuda.barrier", kind = "functions", language = "python" },
]
)");
  const auto config = load_config_file(file, Catalog::builtin());
  ASSERT_TRUE(config.has_value());
  EXPECT_EQ(config->root, dir_);
  EXPECT_EQ(config->file, file);
  EXPECT_THAT(config->select.value, ElementsAre("SYNC0", "SYNC100"));
  EXPECT_THAT(config->ignore.value, ElementsAre("SYNC012", "SYNC002"));
  EXPECT_EQ(config->severity.value.at("SYNC001"), Severity::Error);
  EXPECT_EQ(config->severity.value.at("SYNC005"), Severity::Note);
  ASSERT_EQ(config->per_file_ignores.value.size(), 2u);
  EXPECT_THAT(config->exclude.value, ElementsAre("build", "third_party/**"));
  EXPECT_THAT(config->hot_functions.value, ElementsAre("my_step"));
  ASSERT_EQ(config->extra_sync_apis.value.size(), 3u);
  EXPECT_EQ(config->extra_sync_apis.value[0].kind, "functions");
  EXPECT_EQ(config->extra_sync_apis.value[0].language, Language::Python);
  EXPECT_EQ(config->extra_sync_apis.value[1].rule_id, "SYNC007");
  EXPECT_EQ(config->extra_sync_apis.value[2].language, Language::Python);
  EXPECT_EQ(config->extra_sync_apis.value[2].name, "mylib.cuda.barrier");
  for (const std::string* source : {&config->select.source, &config->severity.source, &config->extra_sync_apis.source}) {
    EXPECT_EQ(*source, file.string());
  }
}

TEST_F(ConfigTest, DefaultsAndProvenance) {
  const Config config = find_config(dir_, Catalog::builtin());
  EXPECT_FALSE(config.file.has_value());
  EXPECT_EQ(config.root, dir_);
  EXPECT_THAT(config.select.value, ElementsAre("SYNC"));
  EXPECT_EQ(config.select.source, "default");
  EXPECT_TRUE(config.rule_enabled("SYNC001", dir_ / "train.py"));
  EXPECT_EQ(config.severity_for("SYNC001", Severity::Warning), Severity::Warning);

  const fs::path file = write("pyproject.toml", "[project]\nname = \"x\"\n[tool.synclint]\nignore = [\"SYNC005\"]\n");
  const Config loaded = find_config(dir_, Catalog::builtin());
  EXPECT_EQ(loaded.ignore.source, file.string());
  EXPECT_EQ(loaded.select.source, "default");
  const std::string text = describe_config(loaded);
  EXPECT_THAT(text, HasSubstr("# file: " + file.generic_string()));
  EXPECT_THAT(text, ::testing::ContainsRegex("ignore = \\['SYNC005'\\] +# " + file.string()));
  EXPECT_THAT(text, ::testing::ContainsRegex("select = \\['SYNC'\\] +# default"));
  EXPECT_THAT(text, HasSubstr("training_step"));
}

TEST_F(ConfigTest, UnknownKeysSuggest) {
  EXPECT_THAT(error_of("pyproject.toml", "[tool.synclint]\nselct = [\"SYNC\"]\n"),
              HasSubstr("pyproject.toml:2: [tool.synclint] unknown key 'selct' (did you mean 'select'?)"));
  EXPECT_THAT(error_of(".synclint.toml", "per_file_ignores = {}\n"),
              HasSubstr(".synclint.toml:1: unknown key 'per_file_ignores' (did you mean 'per-file-ignores'?)"));
  EXPECT_THAT(error_of(".synclint.toml", "extra-sync-apis = [{ rule = \"SYNC001\", nme = \"x\" }]\n"),
              HasSubstr("unknown key 'extra-sync-apis[0].nme' (did you mean 'name'?)"));
}

TEST_F(ConfigTest, BadValuesNameTheKey) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"select = [\"SYNC0001\"]", "key 'select': unknown rule id, name or prefix 'SYNC0001' (did you mean 'SYNC001'?)"},
      {"ignore = [\"tensor-itme\"]", "(did you mean 'tensor-item'?)"},
      {"ignore = [\"SYNC2\"]", "unknown rule id, name or prefix 'SYNC2'"},
      {"severity = { SYNC0 = \"error\" }", "key 'severity.SYNC0': unknown rule id or name"},
      {"severity = { SYNC001 = \"fatal\" }", "'fatal' is not note, warning or error"},
      {"per-file-ignores = { \"a.py\" = [\"SYNC777\"] }", "key 'per-file-ignores.\"a.py\"': unknown rule"},
      {"select = \"SYNC001\"", "key 'select': expected an array of strings, got a string"},
      {"extra-sync-apis = [\"mylib.f\"]", "key 'extra-sync-apis[0]': expected a table"},
      {"extra-sync-apis = [{ rule = \"SYNC001\", name = \"f\", kind = \"builtin\" }]",
       "'builtin' is not a python API kind (methods, functions, builtins) (did you mean 'builtins'?)"},
      {"extra-sync-apis = [{ rule = \"SYNC002\", name = \"f\", language = \"cpp\" }]",
       "SYNC002 (tensor-tolist) does not apply to cpp"},
      {"extra-sync-apis = [{ name = \"f\" }]", "key 'extra-sync-apis[0].rule': missing"},
      {"select = [", "invalid TOML"},
      {"[tool.synclint]\nselect = [\"SYNC\"]", "key 'tool': a .synclint.toml takes its keys at the top level"},
  };
  for (const auto& [text, expected] : cases) {
    EXPECT_THAT(error_of(".synclint.toml", text + "\n"), HasSubstr(expected)) << text;
  }
  EXPECT_EQ(error_of(".synclint.toml", "select = [\"SYNC\", \"SYNC0\", \"sync01\"]\n"), "(no error)")
      << "prefixes and lower case are accepted";
  // The C++ front-end checks SYNC007, so a user's C++ synchronize helper is accepted.
  EXPECT_EQ(error_of(".synclint.toml", "extra-sync-apis = [{ rule = \"SYNC007\", name = \"my::sync\", language = \"cpp\" }]\n"),
            "(no error)");
}

TEST_F(ConfigTest, ClosestParentWinsAndSynclintTomlBeatsPyproject) {
  write("pyproject.toml", "[tool.synclint]\nignore = [\"SYNC001\"]\n");
  write("pkg/pyproject.toml", "[project]\nname = \"no synclint section\"\n");
  write("pkg/sub/.synclint.toml", "ignore = [\"SYNC002\"]\n");
  write("pkg/sub/pyproject.toml", "[tool.synclint]\nignore = [\"SYNC003\"]\n");
  fs::create_directories(dir_ / "pkg/sub/deeper");

  const Config top = find_config(dir_ / "pkg", Catalog::builtin());  // pkg/pyproject.toml has no section
  EXPECT_EQ(top.file, dir_ / "pyproject.toml");
  EXPECT_THAT(top.ignore.value, ElementsAre("SYNC001"));

  const Config sub = find_config(dir_ / "pkg/sub/deeper", Catalog::builtin());
  EXPECT_EQ(sub.file, dir_ / "pkg/sub/.synclint.toml");
  EXPECT_EQ(sub.root, dir_ / "pkg/sub");
  EXPECT_THAT(sub.ignore.value, ElementsAre("SYNC002"));

  const fs::path cwd = fs::current_path();
  fs::current_path(dir_ / "pkg/sub");
  EXPECT_EQ(find_config("", Catalog::builtin()).file, dir_ / "pkg/sub/.synclint.toml") << "empty: working directory";
  EXPECT_EQ(find_config(".", Catalog::builtin()).file, dir_ / "pkg/sub/.synclint.toml");
  fs::current_path(cwd);

  write("pkg/sub/deeper/train.py", "x = 1\n");
  EXPECT_EQ(find_config(dir_ / "pkg/sub/deeper/train.py", Catalog::builtin()).file, dir_ / "pkg/sub/.synclint.toml");
}

TEST_F(ConfigTest, SelectIgnoreMostSpecificWins) {
  const auto config =
      load_config_file(write(".synclint.toml", "select = [\"SYNC\", \"SYNC005\"]\nignore = [\"SYNC00\"]\n"), Catalog::builtin());
  EXPECT_FALSE(config->rule_enabled("SYNC001", dir_ / "a.py"));
  EXPECT_TRUE(config->rule_enabled("SYNC005", dir_ / "a.py"));
  EXPECT_TRUE(config->rule_enabled("SYNC010", dir_ / "a.py"));
  EXPECT_TRUE(config->rule_enabled("SYNC100", dir_ / "a.py"));
  const auto only = load_config_file(write("only/.synclint.toml", "select = [\"SYNC001\"]\n"), Catalog::builtin());
  EXPECT_TRUE(only->rule_enabled("SYNC001", dir_ / "only/a.py"));
  EXPECT_FALSE(only->rule_enabled("SYNC002", dir_ / "only/a.py"));
}

TEST(ConfigSelectors, NamesAndLowerCaseFromTheCommandLine) {
  Config config;
  config.select = {{"tensor-item", "sync01"}, "command line"};
  config.ignore = {{"SYNC012"}, "command line"};
  EXPECT_TRUE(config.rule_enabled("SYNC001", "a.py"));
  EXPECT_TRUE(config.rule_enabled("SYNC010", "a.py"));
  EXPECT_FALSE(config.rule_enabled("SYNC012", "a.py"));
  EXPECT_FALSE(config.rule_enabled("SYNC002", "a.py"));
  config.ignore = {{"tensor-item"}, "command line"};
  EXPECT_FALSE(config.rule_enabled("SYNC001", "a.py")) << "equally specific: ignore wins";
}

TEST_F(ConfigTest, PerFileIgnores) {
  const auto config = load_config_file(write(".synclint.toml", R"(
per-file-ignores = { "tests/**" = ["SYNC001"], "scripts/*.py" = ["SYNC0"], "conftest.py" = ["tensor-formatting"] }
)"),
                                       Catalog::builtin());
  EXPECT_FALSE(config->rule_enabled("SYNC001", dir_ / "tests/unit/test_a.py"));
  EXPECT_TRUE(config->rule_enabled("SYNC002", dir_ / "tests/unit/test_a.py"));
  EXPECT_TRUE(config->rule_enabled("SYNC001", dir_ / "src/tests.py"));
  EXPECT_FALSE(config->rule_enabled("SYNC007", dir_ / "scripts/bench.py"));
  EXPECT_TRUE(config->rule_enabled("SYNC007", dir_ / "scripts/sub/bench.py")) << "* does not cross '/'";
  EXPECT_TRUE(config->rule_enabled("SYNC100", dir_ / "scripts/bench.py"));
  EXPECT_FALSE(config->rule_enabled("SYNC005", dir_ / "pkg/conftest.py")) << "a glob without '/' matches at any depth";
  // Relative paths are taken from the working directory.
  const fs::path cwd = fs::current_path();
  fs::current_path(dir_);
  EXPECT_FALSE(config->rule_enabled("SYNC001", "tests/test_b.py"));
  fs::current_path(cwd);
}

TEST_F(ConfigTest, Excludes) {
  const auto config =
      load_config_file(write(".synclint.toml", "exclude = [\"build\", \"third_party/**\", \"gen/*_pb2.py\", \".venv\"]\n"),
                       Catalog::builtin());
  EXPECT_TRUE(config->excluded(dir_ / "build/lib/x.py"));
  EXPECT_TRUE(config->excluded(dir_ / "sub/build/x.py"));
  EXPECT_TRUE(config->excluded(dir_ / "third_party/a/b.py"));
  EXPECT_FALSE(config->excluded(dir_ / "src/third_party/b.py")) << "a glob with '/' is anchored";
  EXPECT_TRUE(config->excluded(dir_ / "gen/model_pb2.py"));
  EXPECT_FALSE(config->excluded(dir_ / "gen/model.py"));
  EXPECT_TRUE(config->excluded(dir_ / ".venv/lib/site.py"));
  EXPECT_FALSE(config->excluded(dir_ / "builder.py"));
}

TEST(GlobMatches, FnmatchWithDoubleStar) {
  EXPECT_TRUE(glob_matches("**/test_*.py", "test_a.py"));
  EXPECT_TRUE(glob_matches("**/test_*.py", "a/b/test_a.py"));
  EXPECT_TRUE(glob_matches("a/**/c.py", "a/c.py"));
  EXPECT_TRUE(glob_matches("a/**/c.py", "a/x/y/c.py"));
  EXPECT_FALSE(glob_matches("a/**/c.py", "b/x/c.py"));
  EXPECT_TRUE(glob_matches("./src/*.py", "src/m.py"));
  EXPECT_TRUE(glob_matches("src/", "src/m.py"));
  EXPECT_TRUE(glob_matches("[ab].py", "b.py"));
  EXPECT_FALSE(glob_matches("", "a.py"));
}

TEST_F(ConfigTest, SeverityOverrides) {
  const auto config = load_config_file(write(".synclint.toml", "severity = { SYNC001 = \"error\", SYNC012 = \"note\" }\n"),
                                       Catalog::builtin());
  EXPECT_EQ(config->severity_for("SYNC001", Severity::Warning), Severity::Error);
  EXPECT_EQ(config->severity_for("SYNC012", Severity::Warning), Severity::Note);
  EXPECT_EQ(config->severity_for("SYNC002", Severity::Warning), Severity::Warning);
  EXPECT_EQ(config->severity_for("SYNC001", Severity::Note), Severity::Note) << "a judged note stays a note";
  EXPECT_EQ(config->severity_for("SYNC012", Severity::Error), Severity::Note);
}

TEST_F(ConfigTest, ExtraApisReachTheCatalog) {
  const auto config = load_config_file(
      write(".synclint.toml", "extra-sync-apis = [{ rule = \"SYNC001\", name = \"to_float\", kind = \"methods\" }]\n"),
      Catalog::builtin());
  Catalog catalog = Catalog::builtin();
  apply_extra_apis(*config, catalog);
  const auto rules = catalog.rules_for_api(Language::Python, "methods", "to_float");
  ASSERT_EQ(rules.size(), 1u);
  EXPECT_EQ(rules[0]->id, "SYNC001");
  EXPECT_THAT(describe_config(*config), HasSubstr("{ rule = 'SYNC001', name = 'to_float', kind = 'methods', language = 'python' }"));
}

TEST_F(ConfigTest, PyprojectWithoutSectionIsNotAConfig) {
  EXPECT_FALSE(load_config_file(write("pyproject.toml", "[tool.black]\nline-length = 100\n"), Catalog::builtin()).has_value());
  EXPECT_THROW(load_config_file(dir_ / "missing.toml", Catalog::builtin()), ConfigError);
}

}  // namespace
}  // namespace synclint
