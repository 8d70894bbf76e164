// The C++ rule table against the catalog: a rule that lists `cpp` has an entry in lib/cxx/rules/table.cpp,
// a positive fixture (fixtures/cpp/rules/<ID>_<name>.cpp) and a negative one
// (fixtures/cpp/rules/negative/<ID>_<name>_ok.cpp); an entry names a rule that lists `cpp`. SYNC100 (unused
// suppressions) is found by lib/core/suppressions.cpp for every language: fixtures, no entry.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "core/catalog.h"
#include "cxx/rules/rules.h"

namespace synclint::cxx {
namespace {

namespace fs = std::filesystem;

bool lists_cpp(const Rule& r) { return std::ranges::find(r.languages, Language::Cxx) != r.languages.end(); }

std::string stem(const Rule& r) {
  std::string name = r.name;
  std::ranges::replace(name, '-', '_');
  return r.id + "_" + name;
}

TEST(CxxRuleTable, EveryCppRuleHasAnEntryAndFixtures) {
  fs::path root = fs::path(SYNCLINT_SOURCE_DIR) / "fixtures/cpp/rules";
  int cpp_rules = 0;
  for (const Rule& r : Catalog::builtin().rules()) {
    if (!lists_cpp(r)) continue;
    ++cpp_rules;
    EXPECT_TRUE(fs::exists(root / (stem(r) + ".cpp"))) << r.id << ": no positive C++ fixture";
    EXPECT_TRUE(fs::exists(root / "negative" / (stem(r) + "_ok.cpp"))) << r.id << ": no negative C++ fixture";
    const RuleEntry* e = find_rule_entry(r.id);
    if (r.id == "SYNC100") {
      EXPECT_EQ(e, nullptr) << "SYNC100 is found after the front-ends, not by a matcher";
      continue;
    }
    ASSERT_NE(e, nullptr) << r.id << " lists cpp but lib/cxx/rules/table.cpp has no entry";
    EXPECT_NE(e->register_matchers, nullptr);
    EXPECT_NE(e->check, nullptr);
  }
  EXPECT_EQ(cpp_rules, 10);
}

TEST(CxxRuleTable, EveryEntryIsACppRuleOnce) {
  std::set<std::string_view> seen;
  for (const RuleEntry& e : rule_table()) {
    const Rule* r = Catalog::builtin().find(e.id);
    ASSERT_NE(r, nullptr) << e.id << " is not in rules/";
    EXPECT_TRUE(lists_cpp(*r)) << e.id << " has a C++ entry but its catalog file does not list cpp";
    EXPECT_TRUE(seen.insert(e.id).second) << e.id << " is registered twice";
  }
}

}  // namespace
}  // namespace synclint::cxx
