// The probe's settings: one table of every environment variable it reads (name, type, default, meaning,
// and whether it is a user setting or a diagnostic), parsed once into Options. A bad value or an unknown
// SYNCLINT_PROBE_* name gives a warning and leaves the default: a setting never stops the program.
// Plain C++ (no CUPTI): the unit tests and the CLI (`synclint probe settings --markdown`) link it too.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace synclint::probe::inject {

// SYNCLINT_PROBE_GPU_RECORDS: in which traced stretches the Activity API's GPU records are on.
enum class GpuRecords {
  First,  // the first stretch only; the later stretches' GPU work is modelled from what it taught
  Model,  // none: every stretch modelled, durations from the syncs alone
  All,    // every stretch
  None,   // none and nothing modelled: the analysis sees no GPU work
};
// The setting's name in the report (RunInfo::gpu_records).
const char* gpu_records_name(GpuRecords g);

// SYNCLINT_PROBE_DRIVER: which driver API calls get callbacks.
enum class DriverCalls {
  Launches,  // direct launches and memsets (what the runtime domain cannot see)
  All,       // also driver syncs and copies
  None,      // none
};

struct Options {
  std::string dir = ".";                // SYNCLINT_PROBE_DIR
  bool record = false;                  // SYNCLINT_PROBE_RECORD
  std::uint64_t record_max = 20000;     // SYNCLINT_PROBE_RECORD_MAX
  bool trace = false;                   // SYNCLINT_PROBE_TRACE
  std::string skip;                     // SYNCLINT_PROBE_SKIP (empty: the defaults)
  double sample = 0.01;                 // SYNCLINT_PROBE_SAMPLE
  std::uint64_t sample_ms = 1000;       // SYNCLINT_PROBE_SAMPLE_MS
  std::optional<std::uint64_t> first_ms;  // SYNCLINT_PROBE_FIRST_MS (unset: sample_ms)
  std::uint64_t first_max_ms = 20000;   // SYNCLINT_PROBE_FIRST_MAX_MS
  GpuRecords gpu_records = GpuRecords::First;  // SYNCLINT_PROBE_GPU_RECORDS
  DriverCalls driver = DriverCalls::Launches;  // SYNCLINT_PROBE_DRIVER
  bool python_calls = true;             // SYNCLINT_PROBE_PYTHON_CALLS
  std::string torch_ops;                // SYNCLINT_PROBE_TORCH_OPS (empty: none)
  std::string symbolizer;               // SYNCLINT_PROBE_SYMBOLIZER (empty: the first tool found)
  std::string cupti_path;               // SYNCLINT_CUPTI_PATH (empty: the usual search)
  std::string library;                  // SYNCLINT_PROBE_LIBRARY (read by `synclint probe`, not the probe)
  bool debug = false;                   // SYNCLINT_PROBE_DEBUG
  std::uint64_t window_ms = 2000;       // SYNCLINT_PROBE_WINDOW_MS
  std::uint64_t window_calls = 200000;  // SYNCLINT_PROBE_WINDOW_CALLS
  std::uint64_t callback_ns = 1500;     // SYNCLINT_PROBE_CALLBACK_NS

  std::uint64_t first_stretch_ms() const { return first_ms.value_or(sample_ms); }
  bool operator==(const Options&) const = default;
};

enum class SettingType { Flag, Number, String, Enum };
enum class SettingKind { User, Diagnostic };

// One row of the table. `apply` parses a non-empty value into `o`; on a bad value it leaves `o` alone
// and says what the value should be in `expected` ("a whole number of at least 1").
struct Setting {
  std::string_view name;
  SettingType type;
  SettingKind kind;
  std::string_view default_value;  // as the docs show it
  std::string_view doc;            // one line, markdown
  bool (*apply)(Options& o, std::string_view value, std::string& expected);
};

// Every setting, in the order the docs list them.
std::span<const Setting> settings();
const Setting* find_setting(std::string_view name);

struct ParsedOptions {
  Options options;
  std::vector<std::string> warnings;  // one line each, without the "synclint-probe: " prefix
};

// Parses an environment given as "NAME=value" entries. Names outside the table are ignored unless they
// start with SYNCLINT_PROBE_ (a warning each); an empty value is the same as unset.
ParsedOptions parse_options(std::span<const std::string_view> environment);
ParsedOptions parse_options(const char* const* environ_entries);

// The user settings as a markdown table (`| setting | default | meaning |`), as docs/probe.md holds it
// between its probe-settings markers.
std::string settings_markdown();

}  // namespace synclint::probe::inject
