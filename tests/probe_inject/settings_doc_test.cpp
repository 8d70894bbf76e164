// docs/probe.md's settings table is the rendering of the probe's settings table (options.h): the block
// between its probe-settings markers must be what `synclint probe settings --markdown` prints.
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "options.h"

namespace synclint::probe::inject {
namespace {

constexpr const char* kBegin = "<!-- probe-settings:begin -->";
constexpr const char* kEnd = "<!-- probe-settings:end -->";
constexpr const char* kRegenerate =
    "regenerate it with `synclint probe settings --markdown` and paste it between the markers";

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

TEST(ProbeSettingsDocs, DocsProbeMdHoldsTheRenderedSettingsTable) {
  const std::string path = std::string(SYNCLINT_SOURCE_DIR) + "/docs/probe.md";
  std::ifstream in(path);
  ASSERT_TRUE(in) << "cannot read " << path;
  std::vector<std::string> doc, found;
  for (std::string line; std::getline(in, line);) doc.push_back(line);
  std::size_t begin = doc.size(), end = doc.size();
  for (std::size_t i = 0; i < doc.size(); ++i) {
    if (doc[i] == kBegin && begin == doc.size()) begin = i;
    else if (doc[i] == kEnd && begin != doc.size() && end == doc.size()) end = i;
  }
  ASSERT_TRUE(begin < doc.size() && end < doc.size())
      << path << " has no lines " << kBegin << " and " << kEnd << " around its settings table; " << kRegenerate;
  found.assign(doc.begin() + static_cast<std::ptrdiff_t>(begin) + 1, doc.begin() + static_cast<std::ptrdiff_t>(end));
  const std::vector<std::string> want = lines_of(settings_markdown());
  if (found == want) return;
  std::ostringstream diff;
  for (std::size_t i = 0; i < std::max(found.size(), want.size()); ++i) {
    const std::string* f = i < found.size() ? &found[i] : nullptr;
    const std::string* w = i < want.size() ? &want[i] : nullptr;
    if (f != nullptr && w != nullptr && *f == *w) continue;
    if (f != nullptr) diff << "- " << path << ":" << begin + 2 + i << ": " << *f << "\n";
    if (w != nullptr) diff << "+ " << *w << "\n";
  }
  ADD_FAILURE() << "the settings table in " << path << " differs from the probe's settings (- docs, + rendered):\n"
                << diff.str() << kRegenerate;
}

}  // namespace
}  // namespace synclint::probe::inject
