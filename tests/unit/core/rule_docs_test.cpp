// Fails when the checked-in docs/rules/ differ from what the catalog generates.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "core/catalog.h"

namespace synclint {
namespace {

namespace fs = std::filesystem;

constexpr const char* kRegenerate =
    "docs/rules/ is stale. Regenerate it from the catalog and commit the result:\n"
    "    build/tools/synclint/synclint rules --markdown-dir docs/rules";

TEST(DocsRules, CheckedInPagesAreUpToDate) {
  const fs::path dir = fs::path(SYNCLINT_SOURCE_DIR) / "docs" / "rules";
  const auto pages = rule_doc_pages(Catalog::builtin());
  for (const auto& [name, expected] : pages) {
    std::ifstream in(dir / name, std::ios::binary);
    ASSERT_TRUE(in) << (dir / name).string() << " is missing.\n" << kRegenerate;
    std::ostringstream actual;
    actual << in.rdbuf();
    EXPECT_EQ(actual.str(), expected) << name << " differs.\n" << kRegenerate;
  }
  static const std::regex page_name("SYNC[0-9]+\\.md");
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    const bool generated = std::any_of(pages.begin(), pages.end(), [&](const auto& p) { return p.first == name; });
    EXPECT_TRUE(generated || !std::regex_match(name, page_name))
        << name << " has no rule in the catalog.\n" << kRegenerate;
  }
}

TEST(DocsRules, IndexLinksEveryRule) {
  const auto pages = rule_doc_pages(Catalog::builtin());
  const auto index = std::find_if(pages.begin(), pages.end(), [](const auto& p) { return p.first == "README.md"; });
  ASSERT_NE(index, pages.end());
  for (const Rule& r : Catalog::builtin().rules()) {
    EXPECT_NE(index->second.find("[" + r.id + "](" + r.id + ".md) | " + r.name + " |"), std::string::npos) << r.id;
  }
}

}  // namespace
}  // namespace synclint
