// The one Finding model shared by every front-end, emitter, the engine and the language server.
// No parser or compiler types may appear here.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace synclint {

enum class Severity : std::uint8_t { Note = 0, Warning = 1, Error = 2 };
std::string_view to_string(Severity s);
std::optional<Severity> parse_severity(std::string_view text);  // "note", "warning", "error"

enum class Language : std::uint8_t { Python, Cxx };
std::string_view to_string(Language l);  // "python", "cpp"
std::optional<Language> parse_language(std::string_view text);

enum class Confidence : std::uint8_t { Low = 0, Medium = 1, High = 2 };
std::string_view to_string(Confidence c);

// 1-based line; 1-based column counted in Unicode code points of the line (what editors show).
struct Position {
  std::uint32_t line = 0;
  std::uint32_t column = 0;
  friend auto operator<=>(const Position&, const Position&) = default;
};

// A range in one file; `end` is exclusive. `path` is the path as the user named it (relative when the
// user gave a relative path), with '/' separators.
struct SourceRange {
  std::string path;
  Position begin;
  Position end;
  friend bool operator==(const SourceRange&, const SourceRange&) = default;
};

// A second location that explains the finding: the loop that makes the site hot, the call that makes a
// function hot, the periodic guard.
struct RelatedLocation {
  SourceRange range;
  std::string message;
  friend bool operator==(const RelatedLocation&, const RelatedLocation&) = default;
};

// A text replacement an editor can apply (LSP code action, SARIF fix).
struct TextEdit {
  SourceRange range;
  std::string replacement;
};

// What the runtime probe measured for one source site (joined by `check --costs`).
struct SiteCost {
  std::uint64_t calls = 0;
  double host_blocked_ms = 0;       // total time the host thread was blocked at this site
  double gpu_idle_ms = 0;           // total time the GPU then sat idle before its next work
  double predicted_saving_ms = 0;   // what-if estimate: end-to-end time saved without these waits
  double share_of_run = 0;          // predicted_saving_ms / run wall time, 0..1
};

struct Finding {
  std::string rule_id;    // "SYNC001"
  std::string rule_name;  // "tensor-item"
  Severity severity = Severity::Warning;
  SourceRange range;      // the syncing expression
  std::string message;    // one sentence, says what syncs and why it is hot
  std::vector<RelatedLocation> related;
  Confidence confidence = Confidence::High;  // Low when the device of the value is unknown
  bool periodic = false;         // guarded by a logging-interval condition or once per epoch
  std::uint32_t reads_per_step = 1;  // > 1 when inside a loop over parameters/elements nested in a hot loop
  std::string function;          // enclosing function ("Trainer.train_step", "<module>")
  std::string fix;               // what to do instead, prose
  std::vector<TextEdit> edits;   // optional machine-applicable fix
  std::optional<SiteCost> cost;  // set by the ranking join
};

// Stable order for output: path, line, column, rule id.
bool finding_less(const Finding& a, const Finding& b);

// A problem with one input that did not stop the run (unreadable file, invalid UTF-8, syntax error,
// file too large, symlink loop). `fatal` errors make the exit status 2; others are reported only.
struct FileError {
  std::string path;
  std::string message;
  bool fatal = true;
  std::optional<Position> position;  // where, for syntax errors
};

// A synchronization the probe saw at run time.
struct RuntimeSite {
  SourceRange range;    // path and line (column 0 when unknown)
  std::string function;
  std::string api;      // "cudaStreamSynchronize", ...
  SiteCost cost;
};

// Everything a run of `synclint check` produced; what emitters and the language server consume.
struct Report {
  std::vector<Finding> findings;
  std::vector<FileError> errors;
  std::size_t files_checked = 0;
  // The files checked, as findings name them, in checking order (files_checked == checked_paths.size()
  // when the engine fills it). The JUnit emitter lists each clean file as a passing test case.
  std::vector<std::string> checked_paths;
  bool has_costs = false;                      // a probe report was joined
  std::vector<RuntimeSite> missed_by_static;   // runtime syncs no finding covers (only with costs)
};

}  // namespace synclint
