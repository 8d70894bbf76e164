// Central suppression service: inline and file-level suppressions, applied after the front-ends, with
// unused suppressions reported as findings of rule SYNC100 (unused-suppression).
#pragma once

#include <string>
#include <vector>

#include "core/finding.h"

namespace synclint {

// A comment as the front-end found it (tree-sitter comment node, Clang comment token): text starts at
// the comment marker ("# noqa: SYNC001", "// NOLINT(SYNC001)").
struct Comment {
  Position begin;
  Position end;
  std::string text;
};

// Recognised forms, Python: `# synclint: ignore[SYNC001, SYNC005]`, `# synclint: ignore` (all rules on
// that line), `# noqa: SYNC001`, `# noqa` (bare, all rules), file-level `# synclint: ignore-file` and
// `# synclint: ignore-file[SYNC001]`. C++: `// NOLINT(SYNC001)`, `// NOLINT(synclint-SYNC001)`,
// `// NOLINTNEXTLINE(SYNC001)`, `// NOLINTBEGIN(SYNC001)` ... `// NOLINTEND(SYNC001)`,
// `// synclint: ignore[...]`. Ids may be rule names too. Codes in `# noqa` that are not synclint codes
// (E501, ...) are ignored and never reported as unused.
struct Suppression {
  std::uint32_t line = 0;  // line the suppression applies to (0 for file level)
  std::uint32_t last_line = 0;  // last line it applies to: `line`, or a NOLINTEND's line for NOLINTBEGIN
  Position where;          // where the comment is (for reporting unused ones)
  std::vector<std::string> ids;  // empty: all synclint rules
  bool file_level = false;
  bool used = false;
  // Added: per-id use (parallel to `ids`), so `ignore[SYNC001, SYNC005]` can report SYNC005 alone.
  std::vector<bool> id_used;
  Position end;                  // end of the comment (exclusive), for the SYNC100 finding's range
  bool report_unused = true;     // false for bare `# noqa` / `// NOLINT`: other linters own those
};

class Suppressions {
 public:
  static Suppressions parse(Language lang, const std::string& path, const std::vector<Comment>& comments);

  // Removes suppressed findings of this file from `findings` (others untouched) and marks the
  // suppressions used.
  void apply(std::vector<Finding>& findings);

  // SYNC100 findings for suppressions that suppressed nothing (call after apply).
  std::vector<Finding> unused(const class Catalog& catalog) const;

  const std::vector<Suppression>& all() const { return items_; }

 private:
  std::string path_;
  std::vector<Suppression> items_;
};

}  // namespace synclint
