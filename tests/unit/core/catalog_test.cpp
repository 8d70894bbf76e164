#include "core/catalog.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>
#include <set>

#include "core/suggest.h"

namespace synclint {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// A valid rule file; tests break one thing at a time.
std::string rule_text(std::string_view id = "SYNC001", std::string_view name = "tensor-item",
                      std::string_view extra_top = "", std::string_view apis = "[apis.python]\nmethods = [\"item\"]\n",
                      std::string_view docs_extra = "") {
  std::string text;
  text += "id = \"" + std::string(id) + "\"\n";
  text += "name = \"" + std::string(name) + "\"\n";
  text += "summary = \"Reads a value.\"\n";
  text += "languages = [\"python\", \"cpp\"]\n";
  text += extra_top;
  text += "\n";
  text += apis;
  text += "\n[docs]\nwhat = \"w\"\nwhy = \"y\"\nexample = \"e\"\nuse_instead = \"u\"\noptions = \"o\"\n";
  text += docs_extra;
  return text;
}

std::string load_error(const std::vector<std::pair<std::string, std::string>>& files) {
  try {
    Catalog::from_files(files);
  } catch (const CatalogError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(CatalogBuiltin, HasTheFixedRuleIdsAndNames) {
  const Catalog& catalog = Catalog::builtin();
  std::vector<std::pair<std::string, std::string>> got;
  for (const Rule& r : catalog.rules()) got.emplace_back(r.id, r.name);
  EXPECT_THAT(got, ElementsAre(std::pair<std::string, std::string>{"SYNC001", "tensor-item"},
                               std::pair<std::string, std::string>{"SYNC002", "tensor-tolist"},
                               std::pair<std::string, std::string>{"SYNC003", "device-to-host-copy"},
                               std::pair<std::string, std::string>{"SYNC004", "scalar-conversion"},
                               std::pair<std::string, std::string>{"SYNC005", "tensor-formatting"},
                               std::pair<std::string, std::string>{"SYNC006", "branch-on-device-value"},
                               std::pair<std::string, std::string>{"SYNC007", "explicit-synchronize"},
                               std::pair<std::string, std::string>{"SYNC008", "data-dependent-shape"},
                               std::pair<std::string, std::string>{"SYNC009", "syncing-library-call"},
                               std::pair<std::string, std::string>{"SYNC010", "logger-sink"},
                               std::pair<std::string, std::string>{"SYNC011", "blocking-host-to-device-copy"},
                               std::pair<std::string, std::string>{"SYNC012", "unsynchronized-timing"},
                               std::pair<std::string, std::string>{"SYNC100", "unused-suppression"}));
}

TEST(CatalogBuiltin, EveryRuleHasEveryDocSectionAndValidApis) {
  for (const Rule& r : Catalog::builtin().rules()) {
    SCOPED_TRACE(r.id);
    EXPECT_FALSE(r.summary.empty());
    EXPECT_FALSE(r.docs.what.empty());
    EXPECT_FALSE(r.docs.why.empty());
    EXPECT_FALSE(r.docs.example.empty());
    EXPECT_FALSE(r.docs.use_instead.empty());
    EXPECT_FALSE(r.docs.options.empty());
    EXPECT_THAT(r.docs.example, HasSubstr("```")) << "examples are fenced code";
    EXPECT_FALSE(r.languages.empty());
    for (const auto& [lang, kinds] : r.apis) {
      EXPECT_NE(std::find(r.languages.begin(), r.languages.end(), lang), r.languages.end());
      for (const auto& [kind, names] : kinds) {
        const auto& valid = api_kinds(lang);
        EXPECT_NE(std::find(valid.begin(), valid.end(), kind), valid.end()) << kind;
        EXPECT_FALSE(names.empty()) << kind;
      }
    }
    const std::string page = r.markdown();
    for (const char* heading : {"## What it does", "## Why it stalls the GPU", "## Example", "## Use instead",
                                "## Options"}) {
      EXPECT_THAT(page, HasSubstr(heading));
    }
    EXPECT_EQ(page.rfind("# " + r.id + ": " + r.name + "\n", 0), 0u) << page.substr(0, 60);
    EXPECT_EQ(r.help_uri(), "docs/rules/" + r.id + ".md");
  }
}

TEST(CatalogBuiltin, SeverityDefaults) {
  EXPECT_EQ(Catalog::builtin().find("SYNC100")->default_severity, Severity::Warning);
  EXPECT_EQ(Catalog::builtin().find("SYNC001")->default_severity, Severity::Warning);
}

TEST(CatalogBuiltin, FindByIdNameAndCase) {
  const Catalog& c = Catalog::builtin();
  ASSERT_NE(c.find("SYNC001"), nullptr);
  EXPECT_EQ(c.find("tensor-item"), c.find("SYNC001"));
  EXPECT_EQ(c.find("sync001"), c.find("SYNC001"));
  EXPECT_EQ(c.find("SYNC999"), nullptr);
  EXPECT_EQ(c.find("tensor_item"), nullptr);
}

TEST(CatalogBuiltin, RulesForApi) {
  const Catalog& c = Catalog::builtin();
  auto item = c.rules_for_api(Language::Python, "methods", "item");
  ASSERT_EQ(item.size(), 1u);
  EXPECT_EQ(item[0]->id, "SYNC001");
  auto sync = c.rules_for_api(Language::Python, "functions", "torch.cuda.synchronize");
  ASSERT_EQ(sync.size(), 1u);
  EXPECT_EQ(sync[0]->id, "SYNC007");
  // "to" is a candidate for both directions of copy; the rules judge the target.
  std::set<std::string> to_rules;
  for (const Rule* r : c.rules_for_api(Language::Python, "methods", "to")) to_rules.insert(r->id);
  EXPECT_EQ(to_rules, (std::set<std::string>{"SYNC003", "SYNC011"}));
  EXPECT_TRUE(c.rules_for_api(Language::Python, "methods", "no_such_method").empty());
  EXPECT_TRUE(c.rules_for_api(Language::Python, "builtins", "item").empty()) << "kinds are separate";
  // The C++ tables are separate from the Python ones.
  ASSERT_EQ(c.rules_for_api(Language::Cxx, "functions", "torch::cuda::synchronize").size(), 1u);
  EXPECT_EQ(c.rules_for_api(Language::Cxx, "functions", "torch::cuda::synchronize")[0]->id, "SYNC007");
  EXPECT_TRUE(c.rules_for_api(Language::Cxx, "functions", "torch.cuda.synchronize").empty());
}

TEST(CatalogBuiltin, ApiReturns) {
  const Catalog& c = Catalog::builtin();
  for (const char* id : {"SYNC001", "SYNC002", "SYNC004"}) EXPECT_EQ(c.find(id)->returns(Language::Python), "host") << id;
  EXPECT_EQ(c.find("SYNC012")->returns(Language::Python), "timer");
  EXPECT_EQ(c.find("SYNC003")->returns(Language::Python), "") << ".cpu() gives a host tensor, not a host value";
  EXPECT_EQ(c.find("SYNC001")->returns(Language::Cxx), "host");
  EXPECT_EQ(c.find("SYNC003")->returns(Language::Cxx), "");
  EXPECT_EQ(c.find("SYNC001")->api_names(Language::Python, "returns").size(), 0u) << "returns is no API kind";

  const Catalog loaded = Catalog::from_files(
      {{"SYNC001.toml", rule_text("SYNC001", "tensor-item", "", "[apis.python]\nreturns = \"host\"\nmethods = [\"item\"]\n")}});
  EXPECT_EQ(loaded.find("SYNC001")->returns(Language::Python), "host");
  EXPECT_EQ(loaded.rules_for_api(Language::Python, "methods", "item").size(), 1u);
  EXPECT_THAT(load_error({{"SYNC001.toml", rule_text("SYNC001", "tensor-item", "", "[apis.python]\nreturns = \"hosts\"\n")}}),
              HasSubstr("key 'apis.python.returns': 'hosts' is not host or timer (did you mean 'host'?)"));
  EXPECT_THAT(load_error({{"SYNC001.toml", rule_text("SYNC001", "tensor-item", "", "[apis.python]\nreturns = [\"host\"]\n")}}),
              HasSubstr("key 'apis.python.returns': expected a string"));
}

TEST(Catalog, AddApi) {
  Catalog c = Catalog::builtin();
  c.add_api("SYNC001", Language::Python, "functions", "mylib.metrics.to_float");
  auto found = c.rules_for_api(Language::Python, "functions", "mylib.metrics.to_float");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0]->id, "SYNC001");
  EXPECT_THAT(c.find("SYNC001")->api_names(Language::Python, "functions"), ElementsAre("mylib.metrics.to_float"));
  // By rule name too; adding twice keeps one entry.
  c.add_api("tensor-item", Language::Python, "functions", "mylib.metrics.to_float");
  EXPECT_EQ(c.find("SYNC001")->api_names(Language::Python, "functions").size(), 1u);
  // The builtin catalog itself is untouched.
  EXPECT_TRUE(Catalog::builtin().rules_for_api(Language::Python, "functions", "mylib.metrics.to_float").empty());
}

TEST(Catalog, AddApiRejectsBadInput) {
  Catalog c = Catalog::builtin();
  EXPECT_THROW(c.add_api("SYNC999", Language::Python, "functions", "x"), CatalogError);
  EXPECT_THROW(c.add_api("SYNC001", Language::Cxx, "builtins", "x"), CatalogError);
  EXPECT_THROW(c.add_api("SYNC001", Language::Python, "function", "x"), CatalogError);
  EXPECT_THROW(c.add_api("SYNC002", Language::Cxx, "methods", "tolist"), CatalogError) << "python-only rule";
  EXPECT_NO_THROW(c.add_api("SYNC007", Language::Cxx, "functions", "my::sync")) << "SYNC007 applies to C++";
  EXPECT_THROW(c.add_api("SYNC001", Language::Python, "methods", ""), CatalogError);
  try {
    c.add_api("SYNC001", Language::Python, "method", "x");
    ADD_FAILURE() << "accepted the API kind 'method'";
  } catch (const CatalogError& e) {
    EXPECT_THAT(e.what(), HasSubstr("did you mean 'methods'?"));
  }
}

TEST(CatalogLoad, ValidFileLoads) {
  const Catalog c = Catalog::from_files({{"SYNC001.toml", rule_text()}});
  ASSERT_EQ(c.rules().size(), 1u);
  EXPECT_EQ(c.rules()[0].default_severity, Severity::Warning);
  EXPECT_THAT(c.rules()[0].languages, ElementsAre(Language::Python, Language::Cxx));
}

TEST(CatalogLoad, RejectsInvalidToml) {
  EXPECT_THAT(load_error({{"SYNC001.toml", "id = \"SYNC001\nname = 3"}}),
              ::testing::AllOf(HasSubstr("SYNC001.toml:1:"), HasSubstr("invalid TOML")));
}

TEST(CatalogLoad, RejectsUnknownKeysWithSuggestion) {
  EXPECT_THAT(load_error({{"SYNC001.toml", rule_text("SYNC001", "tensor-item", "sumary = \"x\"\n")}}),
              HasSubstr("SYNC001.toml:5: unknown key 'sumary' (did you mean 'summary'?)"));
  EXPECT_THAT(load_error({{"SYNC001.toml", rule_text("SYNC001", "tensor-item", "", "", "exmple = \"x\"\n")}}),
              HasSubstr("unknown key 'docs.exmple' (did you mean 'example'?)"));
  EXPECT_THAT(load_error({{"SYNC001.toml", rule_text("SYNC001", "tensor-item", "", "[apis.python]\nmethod = [\"item\"]\n")}}),
              HasSubstr("unknown key 'apis.python.method' (did you mean 'methods'?)"));
}

TEST(CatalogLoad, RejectsMissingFields) {
  std::string text = rule_text();
  text.erase(text.find("summary"), text.find('\n', text.find("summary")) - text.find("summary") + 1);
  EXPECT_THAT(load_error({{"SYNC001.toml", text}}), HasSubstr("SYNC001.toml:1: key 'summary': missing"));
  std::string no_options = rule_text();
  no_options.erase(no_options.find("options = "));
  EXPECT_THAT(load_error({{"SYNC001.toml", no_options}}), HasSubstr("key 'docs.options': missing"));
  std::string empty_why = rule_text();
  empty_why.replace(empty_why.find("why = \"y\""), 9, "why = \"  \"");
  EXPECT_THAT(load_error({{"SYNC001.toml", empty_why}}), HasSubstr("key 'docs.why': must not be empty"));
}

TEST(CatalogLoad, RejectsBadValues) {
  EXPECT_THAT(load_error({{"SYNC001.toml", rule_text("SYNC001", "tensor-item", "severity = \"warn\"\n")}}),
              HasSubstr("key 'severity': 'warn' is not note, warning or error (did you mean 'warning'?)"));
  std::string bad_lang = rule_text();
  bad_lang.replace(bad_lang.find("\"cpp\""), 5, "\"rust\"");
  EXPECT_THAT(load_error({{"SYNC001.toml", bad_lang}}), HasSubstr("key 'languages': 'rust' is not python or cpp"));
  EXPECT_THAT(load_error({{"SYNC001.toml", rule_text("SYNC001", "tensor-item", "", "[apis.cpp]\nbuiltins = [\"x\"]\n")}}),
              HasSubstr("unknown key 'apis.cpp.builtins'"));
  EXPECT_THAT(load_error({{"SYNC001.toml", rule_text("SYNC001", "tensor-item", "", "[apis.pyhton]\nmethods = [\"x\"]\n")}}),
              HasSubstr("key 'apis.pyhton': not one of the rule's languages [python, cpp] (did you mean 'python'?)"));
  EXPECT_THAT(load_error({{"SYNC001.toml", rule_text("SYNC001", "tensor-item", "", "[apis.python]\nmethods = \"item\"\n")}}),
              HasSubstr("key 'apis.python.methods': expected an array of strings, got a string"));
  EXPECT_THAT(load_error({{"SYNC001.toml", rule_text("SYNC001", "tensor-item", "", "[apis.python]\nmethods = [\"a\", \"a\"]\n")}}),
              HasSubstr("'a' is listed twice"));
  EXPECT_THAT(load_error({{"SYNC001.toml", rule_text("SYNC01")}}), HasSubstr("key 'id': 'SYNC01' is not SYNC"));
  EXPECT_THAT(load_error({{"SYNC002.toml", rule_text("SYNC001")}}), HasSubstr("does not match the file name"));
  EXPECT_THAT(load_error({{"SYNC001.toml", rule_text("SYNC001", "Tensor_Item")}}), HasSubstr("key 'name'"));
}

TEST(CatalogLoad, RejectsDuplicates) {
  EXPECT_THAT(load_error({{"a/SYNC001.toml", rule_text()}, {"b/SYNC001.toml", rule_text("SYNC001", "other")}}),
              HasSubstr("b/SYNC001.toml: key 'id': 'SYNC001' is already defined in a/SYNC001.toml"));
  EXPECT_THAT(load_error({{"SYNC001.toml", rule_text()}, {"SYNC002.toml", rule_text("SYNC002")}}),
              HasSubstr("SYNC002.toml: key 'name': 'tensor-item' is already defined in SYNC001.toml"));
}

TEST(Suggest, EditDistanceAndClosest) {
  EXPECT_EQ(edit_distance("select", "selct"), 1u);
  EXPECT_EQ(edit_distance("", "abc"), 3u);
  EXPECT_EQ(edit_distance("SYNC001", "sync001"), 0u);
  EXPECT_EQ(closest_match("selct", {"ignore", "select"}), "select");
  EXPECT_EQ(closest_match("zzzzzz", {"ignore", "select"}), std::nullopt);
  EXPECT_EQ(did_you_mean("x", {}), "");
  EXPECT_EQ(closest_match(std::string(1 << 20, 'x'), Catalog::builtin().ids_and_names()), std::nullopt);
}

// closest_match skips candidates whose length alone puts them too far: its answers are those of the
// definition (every candidate's distance computed), on random words (fixed seed).
TEST(Suggest, ClosestMatchIsTheDefinitionsMatch) {
  auto by_definition = [](const std::string& word, const std::vector<std::string>& candidates) {
    std::optional<std::string> best;
    std::size_t best_distance = std::max<std::size_t>(1, word.size() / 3) + 1;
    for (const std::string& c : candidates) {
      std::size_t d = edit_distance(word, c);
      if (word.size() >= 3 && c.size() > word.size() && iequals(std::string_view(c).substr(0, word.size()), word))
        d = std::min<std::size_t>(d, 1);
      if (d < best_distance) {
        best_distance = d;
        best = c;
      }
    }
    return best;
  };
  std::mt19937 random(7);
  auto word = [&] {
    std::string w(random() % 14, ' ');
    for (char& ch : w) ch = "abSy0"[random() % 5];
    return w;
  };
  for (int i = 0; i < 20000; ++i) {
    const std::string w = word();
    std::vector<std::string> candidates(1 + random() % 6);
    for (std::string& c : candidates) c = word();
    ASSERT_EQ(closest_match(w, candidates), by_definition(w, candidates)) << "'" << w << "'";
  }
}

}  // namespace
}  // namespace synclint
