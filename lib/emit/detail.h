// Pieces shared by the emitters (not part of the public interface: include emit/emit.h).
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "emit/emit.h"

namespace synclint::emit::detail {

void write_text(std::ostream& out, const Report& report, const Catalog& catalog, const Options& options);
void write_json(std::ostream& out, const Report& report, const Catalog& catalog, const Options& options);
void write_sarif(std::ostream& out, const Report& report, const Catalog& catalog, const Options& options);
void write_github(std::ostream& out, const Report& report, const Catalog& catalog, const Options& options);
void write_junit(std::ostream& out, const Report& report, const Catalog& catalog, const Options& options);

// Options::tool_version, or the version this library was built as.
std::string tool_version(const Options& options);

// --- UTF-8 ---------------------------------------------------------------------------------------

// One code point of a line and where its bytes are. Invalid bytes decode one by one as U+FFFD.
struct CodePoint {
  char32_t value = 0;
  std::size_t offset = 0;  // byte offset in the line
  std::size_t size = 0;    // bytes
  bool valid = true;
};
// The code point whose bytes start at `at` (< text.size()).
CodePoint code_point_at(std::string_view text, std::size_t at);
std::vector<CodePoint> decode_utf8(std::string_view text);
void append_utf8(std::string& out, char32_t cp);
// Columns a terminal gives the code point: 0 (combining, zero-width), 1, or 2 (East Asian wide, emoji).
int display_width(char32_t cp);
// `text` with invalid UTF-8 sequences replaced by U+FFFD.
std::string valid_utf8(std::string_view text);
// `text` on one line: control characters (newlines, tabs, escapes) become spaces, invalid UTF-8 U+FFFD.
std::string one_line(std::string_view text);

// --- URIs --------------------------------------------------------------------------------------

// RFC 3986 percent-encoding of a '/'-separated path: unreserved characters and '/' stay.
std::string percent_encode_path(std::string_view path);
// "file:///abs/dir/" for an absolute directory (always ends in '/').
std::string directory_uri(const std::filesystem::path& absolute_dir);
// "file:///abs/file.py"
std::string file_uri(const std::filesystem::path& absolute_file);

// --- locations -----------------------------------------------------------------------------------

// What a SourceRange really says, for formats whose fields are optional: start_line 0 when the line is
// unknown; columns only when known; the end only when it is not before the start.
struct RegionFields {
  std::uint32_t start_line = 0;
  std::optional<std::uint32_t> start_column;
  std::optional<std::uint32_t> end_line;
  std::optional<std::uint32_t> end_column;
};
RegionFields region_fields(const SourceRange& range);

// --- source lines --------------------------------------------------------------------------------

// Reads each file at most once through Options::read_source and hands out its lines.
class SourceCache {
 public:
  explicit SourceCache(const Options& options) : options_(options) {}
  // Line `line` (1-based) of `path` without its line ending; nullopt when unknown.
  std::optional<std::string_view> line(const std::string& path, std::uint32_t line);
  // Number of lines of `path` (at least 1); nullopt when unknown.
  std::optional<std::uint32_t> line_count(const std::string& path);

 private:
  struct File {
    std::string text;
    std::vector<std::size_t> starts;  // byte offset of each line
  };
  const File* file(const std::string& path);
  const Options& options_;
  std::map<std::string, std::optional<File>, std::less<>> files_;
};

// The source line of a finding as a terminal shows it, and the marker line under it ("^~~~"): tabs are
// expanded (tab stop 8), wide characters take two cells, control characters and invalid UTF-8 show as
// U+FFFD. `first_column` and `end_column` (exclusive; nullopt: to the end of the line) count code points
// from 1. Lines wider than `max_width` cells are cut around the marker, with "..." where text was cut; only
// the line up to the end of what is shown is read (a line of megabytes costs no more than its start).
// With `start`, reading may begin there instead of at the line's start (see SnippetStart).
struct Snippet {
  std::string source;
  std::string marker;
};
// A place in a line where rendering its snippets may start reading: cell `cell` (0-based) begins at byte
// `byte` and display column `column`. render_snippet takes it when it lies at or before what it must read
// (else it reads from the line's start) and leaves in it where its window began, so that the snippets of
// many findings on one long line, in column order, read the line once. The caller keeps one per line (an
// empty one, cell 0, to begin).
struct SnippetStart {
  std::size_t cell = 0, byte = 0, column = 0;
};
Snippet render_snippet(std::string_view line, std::uint32_t first_column, std::optional<std::uint32_t> end_column,
                       std::size_t max_width = 200, SnippetStart* start = nullptr);

// --- wording shared by the human-readable formats -----------------------------------------------

// "1,234"
std::string group_thousands(std::uint64_t n);
// "1,234 calls, host blocked 12.3 ms, GPU idle 4.5 ms, predicted saving 15.1 ms (3.2% of run)"
std::string cost_text(const SiteCost& cost);
// "path:line:col", "path:line" (column 0), "path" (line 0)
std::string location_text(const std::string& path, std::uint32_t line, std::uint32_t column);
std::string location_text(const SourceRange& range);
std::string location_text(const FileError& error);
// "[SYNC001 tensor-item]"
std::string rule_tag(const Finding& finding);
// "3 findings" / "1 finding"
std::string plural(std::size_t n, std::string_view one, std::string_view many);

struct Counts {
  std::size_t errors = 0;    // findings at error severity
  std::size_t warnings = 0;
  std::size_t notes = 0;
  std::size_t total() const { return errors + warnings + notes; }
};
Counts count_severities(const Report& report);
// "2 warnings, 1 note" (zero categories left out)
std::string severity_breakdown(const Counts& counts);

// Rule position in the catalog (SARIF ruleIndex); nullopt when the catalog does not know the id.
std::optional<std::size_t> rule_index(const Catalog& catalog, std::string_view rule_id);

}  // namespace synclint::emit::detail
