// Suppression comments, Python (`# synclint: ignore[...]`, `# noqa`) and C++ (`// NOLINT(...)`,
// NOLINTNEXTLINE, NOLINTBEGIN/END): the input's first byte picks the language, each further line is one
// comment on that line. The suppressions are applied to a finding of two rules on every line, and the
// unused ones reported.
#include "core/catalog.h"
#include "core/suppressions.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace synclint;
  if (size == 0) return 0;
  const Language lang = (data[0] & 1) ? Language::Cxx : Language::Python;
  std::string_view text = fuzz::as_text(data + 1, size - 1);
  std::vector<Comment> comments;
  std::vector<Finding> findings;
  for (std::uint32_t line = 1; !text.empty() && line < 10000; ++line) {
    const std::size_t eol = text.find('\n');
    const std::string_view comment = text.substr(0, eol);
    comments.push_back({{line, 4}, {line, 4 + static_cast<std::uint32_t>(comment.size())}, std::string(comment)});
    for (const char* rule : {"SYNC001", "SYNC005"}) {
      Finding f;
      f.rule_id = rule;
      f.range = {"input", {line, 0}, {line, 3}};
      findings.push_back(std::move(f));
    }
    text.remove_prefix(eol == std::string_view::npos ? text.size() : eol + 1);
  }
  Suppressions suppressions = Suppressions::parse(lang, "input", comments);
  suppressions.apply(findings);
  (void)suppressions.unused(Catalog::builtin());
  return 0;
}
