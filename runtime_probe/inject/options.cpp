#include "options.h"

#include "core/suggest.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdlib>
#include <string>

namespace synclint::probe::inject {
namespace {

constexpr std::string_view kPrefix = "SYNCLINT_PROBE_";

template <bool Options::*Field>
bool flag(Options& o, std::string_view v, std::string& expected) {
  const bool yes = v == "1" || v == "true" || v == "yes" || v == "on";
  if (!yes && v != "0" && v != "false" && v != "no" && v != "off") {
    expected = "1 or 0";
    return false;
  }
  o.*Field = yes;
  return true;
}

std::optional<std::uint64_t> whole_number(std::string_view v, std::uint64_t min) {
  std::uint64_t n = 0;
  const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  if (ec != std::errc{} || end != v.data() + v.size() || n < min) return std::nullopt;
  return n;
}

template <std::uint64_t Options::*Field, std::uint64_t Min>
bool number(Options& o, std::string_view v, std::string& expected) {
  const auto n = whole_number(v, Min);
  if (!n) {
    expected = "a whole number of at least " + std::to_string(Min);
    return false;
  }
  o.*Field = *n;
  return true;
}

template <std::string Options::*Field>
bool text(Options& o, std::string_view v, std::string&) {
  o.*Field = v;
  return true;
}

bool first_ms(Options& o, std::string_view v, std::string& expected) {
  const auto n = whole_number(v, 1);
  if (!n) {
    expected = "a whole number of at least 1";
    return false;
  }
  o.first_ms = *n;
  return true;
}

bool sample(Options& o, std::string_view v, std::string& expected) {
  const std::string s(v);
  char* end = nullptr;
  const double f = std::strtod(s.c_str(), &end);
  if (end == s.c_str() || *end != '\0' || !(f > 0 && f <= 1)) {
    expected = "a fraction in (0, 1]";
    return false;
  }
  o.sample = f;
  return true;
}

bool gpu_records(Options& o, std::string_view v, std::string& expected) {
  if (v == "first") o.gpu_records = GpuRecords::First;
  else if (v == "model") o.gpu_records = GpuRecords::Model;
  else if (v == "all" || v == "1") o.gpu_records = GpuRecords::All;
  else if (v == "none" || v == "0") o.gpu_records = GpuRecords::None;
  else expected = "model, first, all or none";
  return expected.empty();
}

bool driver(Options& o, std::string_view v, std::string& expected) {
  if (v == "launches" || v == "1") o.driver = DriverCalls::Launches;
  else if (v == "all") o.driver = DriverCalls::All;
  else if (v == "none" || v == "0") o.driver = DriverCalls::None;
  else expected = "launches, all or none (0)";
  return expected.empty();
}

bool symbolizer(Options& o, std::string_view v, std::string& expected) {
  if (v != "addr2line" && v != "llvm-symbolizer" && v != "none") {
    expected = "addr2line, llvm-symbolizer or none";
    return false;
  }
  o.symbolizer = v;
  return true;
}

using enum SettingType;
using enum SettingKind;

constexpr Setting kSettings[] = {
    {"SYNCLINT_PROBE_DIR", String, User, ".",
     "folder of the probe's files: `report-<pid>.json` (`report-rank<R>-<pid>.json` under torchrun), and the "
     "stream and trace files",
     text<&Options::dir>},
    {"SYNCLINT_PROBE_SAMPLE", Number, User, "0.01",
     "fraction of the run traced in full, in (0, 1]; `1` traces everything. Blocking calls are counted all "
     "the time; launches and GPU work only in traced stretches",
     sample},
    {"SYNCLINT_PROBE_SAMPLE_MS", Number, User, "1000", "length of each traced stretch (ms)",
     number<&Options::sample_ms, 1>},
    {"SYNCLINT_PROBE_FIRST_MS", Number, User, "",
     "length of the first traced stretch, from the probe's start (ms; unset: `SYNCLINT_PROBE_SAMPLE_MS`)",
     first_ms},
    {"SYNCLINT_PROBE_FIRST_MAX_MS", Number, User, "20000",
     "with GPU records in the first stretch only, that stretch goes on until the program's GPU work shows "
     "nothing new, for at most this long (ms)",
     number<&Options::first_max_ms, 1>},
    {"SYNCLINT_PROBE_GPU_RECORDS", Enum, User, "first",
     "stretches with GPU activity records: `first` (the later ones modelled from what it measured), `model` "
     "(none: all modelled from the syncs), `all` (the default when everything is traced), `none`",
     gpu_records},
    {"SYNCLINT_PROBE_DRIVER", Enum, User, "launches",
     "driver API calls seen: `launches` (direct launches and memsets), `all` (also driver syncs and copies), "
     "`none` (or `0`)",
     driver},
    {"SYNCLINT_PROBE_PYTHON_CALLS", Flag, User, "1",
     "time the Python calls that made blocking calls (Python 3.12+); `0` turns it off",
     flag<&Options::python_calls>},
    {"SYNCLINT_PROBE_TORCH_OPS", String, User, "",
     "path of `libsynclint_torch_ops.so`: times each read operator of a C++ LibTorch program (`synclint "
     "probe --torch-ops`)",
     text<&Options::torch_ops>},
    {"SYNCLINT_PROBE_SKIP", String, User, "",
     "comma-separated path substrings of frames that are not the user's code; a leading `+` adds them to "
     "the defaults instead of replacing them",
     text<&Options::skip>},
    {"SYNCLINT_PROBE_TRACE", Flag, User, "0",
     "also write `trace-<pid>.json`, a Chrome trace (`synclint probe --trace`); traces everything",
     flag<&Options::trace>},
    {"SYNCLINT_PROBE_RECORD", Flag, User, "0",
     "also write `stream-<pid>.json`, the raw event stream (`synclint probe analyze`); traces everything",
     flag<&Options::record>},
    {"SYNCLINT_PROBE_RECORD_MAX", Number, User, "20000", "most host calls a recorded stream keeps",
     number<&Options::record_max, 1>},
    {"SYNCLINT_PROBE_CALLBACK_NS", Number, User, "1500",
     "host time each recorded call costs outside its own start and end, taken out of the replay's host "
     "gaps (ns; `0`: the traced pace as recorded)",
     number<&Options::callback_ns, 0>},
    {"SYNCLINT_PROBE_DEBUG", Flag, User, "0",
     "counters on stderr at exit, each tracing switch as it happens, and the stack of a thread that faults",
     flag<&Options::debug>},
    {"SYNCLINT_PROBE_SYMBOLIZER", Enum, User, "",
     "the tool that gives native sites their file:line: `addr2line`, `llvm-symbolizer` or `none` (unset: "
     "the first of the two on PATH)",
     symbolizer},
    {"SYNCLINT_PROBE_LIBRARY", String, User, "",
     "the injection library `synclint probe` loads (unset: `libsynclint_probe.so` next to `synclint`)",
     text<&Options::library>},
    {"SYNCLINT_CUPTI_PATH", String, User, "",
     "the `libcupti.so` to open (unset: the one already loaded, else the one found at build time, else the "
     "system's)",
     text<&Options::cupti_path>},
    {"SYNCLINT_PROBE_WINDOW_MS", Number, Diagnostic, "2000",
     "how often the window thread hands the recorded calls to the analysis (ms)",
     number<&Options::window_ms, 1>},
    {"SYNCLINT_PROBE_WINDOW_CALLS", Number, Diagnostic, "200000",
     "calls a thread buffers before a window is cut early", number<&Options::window_calls, 1>},
};

std::string unknown_name(std::string_view name) {
  std::string line = std::string(name) + " is not a setting of the probe; ignored";
  const Setting* nearest = nullptr;
  std::size_t best = 3;  // at most two edits away
  for (const Setting& s : kSettings)
    if (const std::size_t d = edit_distance(name, s.name); d < best) {
      best = d;
      nearest = &s;
    }
  if (nearest != nullptr) line += " (did you mean " + std::string(nearest->name) + "?)";
  return line;
}

}  // namespace

const char* gpu_records_name(GpuRecords g) {
  switch (g) {
    case GpuRecords::First: return "first";
    case GpuRecords::All: return "all";
    case GpuRecords::Model: return "model";
    case GpuRecords::None: return "none";
  }
  return "";
}

std::span<const Setting> settings() { return kSettings; }

const Setting* find_setting(std::string_view name) {
  const auto* it = std::find_if(std::begin(kSettings), std::end(kSettings), [&](const Setting& s) { return s.name == name; });
  return it != std::end(kSettings) ? it : nullptr;
}

ParsedOptions parse_options(std::span<const std::string_view> environment) {
  ParsedOptions parsed;
  for (std::string_view entry : environment) {
    const std::size_t eq = entry.find('=');
    if (eq == std::string_view::npos) continue;
    const std::string_view name = entry.substr(0, eq), value = entry.substr(eq + 1);
    const Setting* s = find_setting(name);
    if (s == nullptr) {
      if (name.starts_with(kPrefix)) parsed.warnings.push_back(unknown_name(name));
      continue;
    }
    if (value.empty()) continue;  // the same as unset
    std::string expected;
    if (!s->apply(parsed.options, value, expected))
      parsed.warnings.push_back(std::string(name) + "=" + std::string(value) + " is not " + expected + "; using " +
                                (s->default_value.empty() ? std::string("the default") : std::string(s->default_value)));
  }
  return parsed;
}

ParsedOptions parse_options(const char* const* environ_entries) {
  std::vector<std::string_view> entries;
  for (const char* const* e = environ_entries; e != nullptr && *e != nullptr; ++e) entries.emplace_back(*e);
  return parse_options(entries);
}

std::string settings_markdown() {
  std::string out = "| setting | default | meaning |\n|---|---|---|\n";
  for (const Setting& s : kSettings) {
    if (s.kind != SettingKind::User) continue;
    out += "| `" + std::string(s.name) + "` | ";
    out += s.default_value.empty() ? std::string("unset") : "`" + std::string(s.default_value) + "`";
    out += " | " + std::string(s.doc) + " |\n";
  }
  return out;
}

}  // namespace synclint::probe::inject
