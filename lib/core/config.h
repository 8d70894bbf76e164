// Configuration: `[tool.synclint]` in pyproject.toml or a `.synclint.toml` (closest parent of a checked
// file wins; in one folder .synclint.toml wins over pyproject.toml). Every value remembers where it came
// from for `synclint config`.
#pragma once

#include <array>
#include <filesystem>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "core/finding.h"

namespace synclint {

class Catalog;

// A configuration problem: unknown key (with "did you mean"), wrong type, unknown rule id. The message
// names the file and the key, e.g. "pyproject.toml: [tool.synclint] unknown key 'selct' (did you mean
// 'select'?)".
class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

template <class T>
struct Sourced {
  T value{};
  std::string source = "default";  // "default", "command line", "/abs/pyproject.toml"
};

// A user-declared syncing API: a project or library helper that synchronizes when called.
struct ExtraApi {
  std::string rule_id;   // which rule reports it, e.g. "SYNC001"
  Language language = Language::Python;
  std::string kind;      // "functions" or "methods" (see catalog.h)
  std::string name;      // "mylib.metrics.to_float" or "to_float"
};

struct PerFileIgnore {
  std::string glob;                 // matched against the path relative to the config's folder
  std::vector<std::string> ids;     // ids or prefixes
};

struct Config {
  std::filesystem::path root;  // folder of the config file (or the working directory when none)
  std::optional<std::filesystem::path> file;  // the file it was read from

  Sourced<std::vector<std::string>> select{{"SYNC"}};  // ids or prefixes
  Sourced<std::vector<std::string>> ignore;
  Sourced<std::map<std::string, Severity>> severity;   // per rule id
  Sourced<std::vector<PerFileIgnore>> per_file_ignores;
  Sourced<std::vector<std::string>> exclude;            // globs, relative to root
  Sourced<std::vector<std::string>> hot_functions;      // extra per-step callback names
  Sourced<std::vector<ExtraApi>> extra_sync_apis;
  // The pyproject.toml files passed over on the way to this one (no [tool.synclint], or not TOML at all
  // and not mentioning synclint), each with why: `synclint config` lists them.
  std::vector<std::string> skipped;

  // Is `rule_id` enabled for the file at `path` (absolute or relative to the working directory)?
  bool rule_enabled(std::string_view rule_id, const std::filesystem::path& path) const;
  // The same for many rules of one file: `file_ignored` is per_file_ignored(path), its globs matched once.
  bool rule_enabled(std::string_view rule_id, const std::vector<std::string>& file_ignored) const;
  // The selectors of every per-file-ignores entry whose glob matches `path`.
  std::vector<std::string> per_file_ignored(const std::filesystem::path& path) const;
  // Severity after overrides: `default_severity` is the finding's level (the rule's default or what the
  // analyzer judged). An override replaces it, except that a note stays a note: the analyzer's
  // downgrades (periodic code, once per epoch, unknown device) survive a `severity = { X = "error" }`.
  Severity severity_for(std::string_view rule_id, Severity default_severity) const;
  // Does an exclude glob match `path`?
  bool excluded(const std::filesystem::path& path) const;
};

// Per-step callback names that are hot by default (training_step, validation_step, test_step, forward,
// compute_loss, on_train_batch_end, ...).
const std::vector<std::string>& default_hot_functions();

// Reads one config file. For pyproject.toml only [tool.synclint] is read; none there -> nullopt.
// Throws ConfigError; validates rule ids against `catalog`.
std::optional<Config> load_config_file(const std::filesystem::path& file, const Catalog& catalog);

// The files a folder's configuration may be in, in the order they are looked for.
inline constexpr std::array<const char*, 2> kConfigFileNames = {".synclint.toml", "pyproject.toml"};

// The config that applies to files in `dir`: the closest parent holding .synclint.toml or a
// pyproject.toml with [tool.synclint]; default Config rooted at `dir` when none.
Config find_config(const std::filesystem::path& dir, const Catalog& catalog);

// Adds the configuration's extra-sync-apis to `catalog` (added; the engine calls it on a copy of
// Catalog::builtin() before analysing). Throws ConfigError naming the config file.
void apply_extra_apis(const Config& config, Catalog& catalog);

// Does `glob` match `relative` (a '/'-separated path relative to the config's folder)? A Glob of
// Style::Config (core/glob.h): a glob without '/' matches any single component (so "build" excludes every
// build folder, "*.py" every Python file); a glob with '/' is anchored at the config's folder and also
// matches everything below a matching folder. (Added.)
bool glob_matches(std::string_view glob, std::string_view relative);

// Human-readable effective configuration with the source of each value (`synclint config`).
std::string describe_config(const Config& config);

}  // namespace synclint
