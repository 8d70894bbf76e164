// Output formats for a Report: one emitter per format behind one entry point, `write`.
// Emitters are pure functions of (Report, Catalog, Options): they never read the clock, the
// environment or the filesystem except through Options (source text comes from read_source), so the
// same inputs always give the same bytes (the golden tests rely on it).
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <string_view>

#include "core/catalog.h"
#include "core/finding.h"

namespace synclint::emit {

enum class Format { Text, Json, Sarif, Github, Junit };

// "text", "json", "sarif", "github", "junit" (exact, lower case); nullopt otherwise.
std::optional<Format> parse_format(std::string_view name);
std::string_view to_string(Format format);
// Every format, in the order above (for --help and "did you mean").
std::span<const Format> all_formats();

struct Options {
  // text: ANSI colours (clang's scheme). The caller decides (TTY, NO_COLOR, --color).
  bool color = false;
  // text: print the source line and a caret line under each finding and related location.
  bool show_source = true;
  // text: print a per-rule count table instead of the findings (ruff's --statistics).
  bool statistics = false;
  // json, sarif, junit: the tool version written into the output; empty -> SYNCLINT_VERSION.
  std::string tool_version;
  // sarif: relative finding paths are relative to this folder; it becomes originalUriBaseIds.SRCROOT.
  // Empty -> std::filesystem::current_path().
  std::filesystem::path working_directory;
  // sarif: absolute URI where the tool's README and docs/ live (it must end in '/'). Written as
  // driver.informationUri and used as the base of every rule's helpUri (base + Rule::help_uri()).
  // nullopt -> default_information_uri(); empty -> both are omitted (no address is invented).
  std::optional<std::string> information_uri;
  // text: source lines for snippets; sarif: the fingerprint of each result hashes its source line.
  // Returns the whole file text, or nullopt when it cannot be read (the emitters then do without).
  // Unset -> no source is read at all.
  std::function<std::optional<std::string>(const std::string& path)> read_source;
};

// Writes `report` in `format` to `out`. Never throws for any report content (invalid UTF-8 in paths or
// messages is replaced, not rejected); stream errors are left to the caller to check.
void write(Format format, std::ostream& out, const Report& report, const Catalog& catalog, const Options& options);

// A `read_source` that reads files from disk (relative paths from the current directory), remembering
// nothing; files larger than `max_bytes` are not read.
std::function<std::optional<std::string>(const std::string& path)> read_source_from_disk(
    std::size_t max_bytes = 64u << 20);

// file:// URI of the source tree this synclint was built from (its README.md and docs/), when that tree
// still exists on this machine; empty otherwise. Suitable for Options::information_uri.
std::string default_information_uri();

}  // namespace synclint::emit
