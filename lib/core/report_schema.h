// The probe report ("synclint-probe-report", docs/probe.md): its data model, field names, types, version,
// and its JSON reader and writer. One unit for both sides: the probe's analysis writes it and `probe
// merge/report` read it (runtime_probe/analysis/report_io.cpp), `synclint check --costs` reads it
// (lib/core/cost_report.cpp). Each object's fields are listed once, in `fields()`, which both the reader
// and the writer walk, so neither side can drop one. Header-only, nlohmann_json only: the analysis that
// includes it is linked into the injected probe too, which does not link the core.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/json_reader.h"
#include "core/json_values.h"

namespace synclint::report_schema {

inline constexpr std::string_view kName = "synclint-probe-report";
inline constexpr int kVersion = 1;  // newest version written and understood

// A source site: where in the user's code a host call was made.
struct SiteLocation {
  std::string path;      // absolute path as seen by the probed process
  std::uint32_t line = 0;
  std::string function;  // "train_step", "Trainer::step"
  std::string language;  // "python" or "cpp"
};

// One probed process (a merged report keeps one per rank / child process in `runs`).
struct Run {
  std::vector<std::string> command;  // argv of the probed process, when known
  std::string cwd;                   // its working directory (for path mapping)
  std::string hostname;
  std::int64_t pid = 0;
  std::int32_t rank = -1;            // RANK / LOCAL_RANK / SLURM_PROCID when set, else -1
  std::string gpu_name;
  double wall_ms = 0;                // run_end - run_start
  std::string status = "ok";         // "ok", or why there is no/partial data ("cupti-unavailable: ...")
  // Where its GPU activities came from (SYNCLINT_PROBE_GPU_RECORDS): "model" (no records: every GPU activity
  // modelled from the syncs alone; the default), "first" (records in the first stretch, the later ones
  // modelled from them), "all" (records in every stretch), "none" (no GPU work at all, a diagnostic);
  // "mixed" in a merge of processes that differ; "" when not known (a report written before the field).
  std::string gpu_records;
  // The probe's time around each traced host call that the replay took out of the host's gaps
  // (EventStream::callback_overhead_ns; SYNCLINT_PROBE_CALLBACK_NS); 0: none taken out.
  std::uint64_t callback_overhead_ns = 0;
};

// One runtime sync site and what it cost.
struct Site {
  SiteLocation site;
  std::string api;             // the blocking API seen most at this site ("cudaStreamSynchronize")
  std::string rule_guess;      // "SYNC001"... from the API pattern, "" when unsure
  std::uint64_t calls = 0;
  std::uint64_t traced_calls = 0;  // calls in traced windows, that the estimates rest on (= calls unsampled)
  double host_blocked_ms = 0;
  double traced_host_blocked_ms = 0;  // host_blocked_ms of the traced calls (= host_blocked_ms unsampled)
  // host_blocked_ms with the traced calls' time as the replay sees them: without the probe's own time
  // around the host's calls (a stream with callback_overhead_ns), a traced read waits longer than it was
  // recorded to; = host_blocked_ms without it. The wait-driven estimates scale to untraced calls by it.
  double replayed_blocked_ms = 0;
  double gpu_idle_ms = 0;
  // The ranked estimate: the replay with the site's reads removed entirely, as the recommended fixes do
  // (the sync takes no time and the device-to-host copy that fed it, host call and GPU copy, is gone).
  double predicted_saving_ms = 0;
  double share_of_run = 0;     // predicted_saving_ms / wall_ms
  double saving_if_removed_ms = 0;  // the same number as predicted_saving_ms (kept for older readers)
  // The replay with only the site's waits removed (its calls keep their non-waiting API overhead).
  double wait_saving_ms = 0;
  // Host time of the timed Python calls that made the site's reads, outside their CUDA calls (Python
  // 3.12+; 0 otherwise): what a removed read takes along besides its calls (docs/probe.md).
  double python_call_ms = 0;
  // The ranks whose processes made the site's calls, ascending (a merge of ranked processes); empty in a
  // process's own report and where no rank is set.
  std::vector<std::int32_t> ranks;
};

// The whole report. The totals are members here and the "totals" object in JSON.
struct Report {
  int version = kVersion;
  Run run;                   // the whole run (merged: the longest wall time, combined status)
  std::vector<Site> sites;   // ordered by predicted_saving_ms, largest first
  std::uint64_t syncs = 0;
  double host_blocked_ms = 0;
  double gpu_idle_ms = 0;
  std::uint64_t dropped_activity_records = 0;
  std::uint64_t windows = 0;  // how many windows were analysed
  // Fraction of the run's time traced in full (launches and GPU activity records); per-site GPU idle
  // and savings measured there are scaled to all the site's calls (add_untraced). 1 when fully traced.
  double sampled_fraction = 1;
  // Fidelity of the what-if replay: (replayed span as recorded - recorded span) / recorded span.
  // Near 0 when the model reproduces the run; savings are differences of two replays either way.
  double replay_error = 0;
  // With SYNCLINT_PROBE_GPU_RECORDS=first: GPU activities modelled for stretches traced without records
  // (GpuModel), and how many of them had no learned duration (work first queued after the first stretch).
  std::uint64_t modelled_gpu_activities = 0;
  std::uint64_t modelled_without_duration = 0;
  std::vector<Run> runs;      // per process: one entry for a single process, one per rank when merged
};

// The fields of each JSON object, in the order they are written: visit(name, member) for each.
template <typename R, typename Visit>
void run_fields(R& r, Visit&& visit) {
  visit("command", r.command);
  visit("cwd", r.cwd);
  visit("hostname", r.hostname);
  visit("pid", r.pid);
  visit("rank", r.rank);
  visit("gpu_name", r.gpu_name);
  visit("wall_ms", r.wall_ms);
  visit("status", r.status);
  visit("gpu_records", r.gpu_records);
  visit("callback_overhead_ns", r.callback_overhead_ns);
}

template <typename S, typename Visit>
void site_fields(S& s, Visit&& visit) {
  visit("path", s.site.path);
  visit("line", s.site.line);
  visit("function", s.site.function);
  visit("language", s.site.language);
  visit("api", s.api);
  visit("rule_guess", s.rule_guess);
  visit("calls", s.calls);
  visit("traced_calls", s.traced_calls);
  visit("host_blocked_ms", s.host_blocked_ms);
  visit("traced_host_blocked_ms", s.traced_host_blocked_ms);
  visit("replayed_blocked_ms", s.replayed_blocked_ms);
  visit("gpu_idle_ms", s.gpu_idle_ms);
  visit("predicted_saving_ms", s.predicted_saving_ms);
  visit("share_of_run", s.share_of_run);
  visit("saving_if_removed_ms", s.saving_if_removed_ms);
  visit("wait_saving_ms", s.wait_saving_ms);
  visit("python_call_ms", s.python_call_ms);
  visit("ranks", s.ranks);
}

template <typename R, typename Visit>
void totals_fields(R& r, Visit&& visit) {
  visit("syncs", r.syncs);
  visit("host_blocked_ms", r.host_blocked_ms);
  visit("gpu_idle_ms", r.gpu_idle_ms);
  visit("dropped_activity_records", r.dropped_activity_records);
  visit("windows", r.windows);
  visit("replay_error", r.replay_error);
  visit("sampled_fraction", r.sampled_fraction);
  visit("modelled_gpu_activities", r.modelled_gpu_activities);
  visit("modelled_without_duration", r.modelled_without_duration);
}

namespace detail {

template <typename Object, typename Fields>
nlohmann::ordered_json object_to_json(const Object& object, Fields fields) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  fields(object, [&](const char* name, const auto& value) { j[name] = value; });
  return j;
}

// Reads every listed field that is present; an absent one keeps its value in `object` (the default).
// Unknown members are ignored, so a reader accepts reports from newer writers of the same version.
template <typename Error, typename Object, typename Fields>
void object_from_json(const nlohmann::json& j, Object& object, Fields fields, const std::string& where) {
  if (!j.is_object()) throw Error(where + ": must be an object");
  fields(object, [&](const char* name, auto& value) {
    value = json_values::member<std::decay_t<decltype(value)>, Error>(j, name, value, where);
  });
}

inline const auto kRunFields = [](auto& r, auto&& visit) { run_fields(r, visit); };
inline const auto kSiteFields = [](auto& s, auto&& visit) { site_fields(s, visit); };
inline const auto kTotalsFields = [](auto& r, auto&& visit) { totals_fields(r, visit); };

}  // namespace detail

// The report as JSON, in field order (callers choose the text form: indentation, invalid UTF-8).
inline nlohmann::ordered_json to_json(const Report& r) {
  using detail::object_to_json;
  nlohmann::ordered_json sites = nlohmann::ordered_json::array();
  for (const Site& s : r.sites) sites.push_back(object_to_json(s, detail::kSiteFields));
  nlohmann::ordered_json runs = nlohmann::ordered_json::array();
  for (const Run& run : r.runs) runs.push_back(object_to_json(run, detail::kRunFields));
  nlohmann::ordered_json doc = nlohmann::ordered_json::object();
  doc["schema"] = kName;
  doc["version"] = r.version;
  doc["run"] = object_to_json(r.run, detail::kRunFields);
  doc["runs"] = std::move(runs);
  doc["totals"] = object_to_json(r, detail::kTotalsFields);
  doc["sites"] = std::move(sites);
  return doc;
}

// More sites than any program has sync sites: a report past it is refused rather than held in memory
// (each site takes about 300 bytes read).
inline constexpr std::size_t kMaxSites = 1'000'000;

// Parses a report from `input` (JSON text, or a std::istream); `source` names it in error messages,
// `wrong_schema_hint` ends the message for a document that is not a probe report. Throws Error on invalid
// JSON (nesting deeper than json_reader::kMaxDepth included), a wrong schema, a version newer than kVersion,
// more than kMaxSites sites, a missing site path and a field of the wrong type. Fields missing from older
// reports take their defaults (traced calls and times: all calls, as before sampling existed). The sites
// are read one at a time, never as one JSON tree.
template <typename Error, typename Input>
Report parse_input(Input&& input, std::string_view source, std::string_view wrong_schema_hint = {}) {
  using nlohmann::json;
  const std::string src(source);
  Report r;
  json_reader::Options options;
  options.streamed = {"sites"};
  options.on_element = [&](const std::string&, std::size_t i, json&& j) {
    if (i >= kMaxSites)
      throw Error(src + ": more than " + std::to_string(kMaxSites) + " sites; a probe report holds one per source line "
                  "that synchronizes, so this is not one synclint reads");
    const std::string where = src + ": sites[" + std::to_string(i) + "]";
    Site s;
    detail::object_from_json<Error>(j, s, detail::kSiteFields, where);
    if (s.site.path.empty()) throw Error(where + ": \"path\" is missing");
    // Reports written before sampling: every call traced, the traced time all of it, replayed as recorded.
    const auto absent = [&](const char* key) {
      const auto it = j.find(key);
      return it == j.end() || it->is_null();
    };
    if (absent("traced_calls")) s.traced_calls = s.calls;
    if (absent("traced_host_blocked_ms"))
      s.traced_host_blocked_ms = s.calls > 0 ? s.host_blocked_ms * static_cast<double>(s.traced_calls) / static_cast<double>(s.calls)
                                             : s.host_blocked_ms;
    if (absent("replayed_blocked_ms")) s.replayed_blocked_ms = s.host_blocked_ms;
    r.sites.push_back(std::move(s));
  };
  json doc;
  try {
    doc = json_reader::parse(std::forward<Input>(input), options);
  } catch (const json_reader::Error& e) {
    throw Error(src + ": not valid JSON: " + e.what());
  }
  const auto top = [&]<typename T>(const char* key, T fallback) {
    return json_values::member<T, Error>(doc, key, std::move(fallback), src);
  };
  if (!doc.is_object() || top("schema", std::string()) != kName)
    throw Error(src + ": not a synclint probe report (\"schema\" must be \"" + std::string(kName) + "\")" +
                std::string(wrong_schema_hint));
  r.version = top("version", 0);
  if (r.version > kVersion)
    throw Error(src + ": report version " + std::to_string(r.version) + " is newer than this synclint understands (" +
                std::to_string(kVersion) + "); use a newer synclint");
  if (r.version < 1) throw Error(src + ": report version " + std::to_string(r.version) + " is invalid");
  if (auto it = doc.find("run"); it != doc.end()) detail::object_from_json<Error>(*it, r.run, detail::kRunFields, src + ": run");
  if (auto it = doc.find("runs"); it != doc.end()) {
    if (!it->is_array()) throw Error(src + ": \"runs\" must be an array");
    for (std::size_t i = 0; i < it->size(); ++i) {
      r.runs.emplace_back();
      detail::object_from_json<Error>((*it)[i], r.runs.back(), detail::kRunFields, src + ": runs[" + std::to_string(i) + "]");
    }
  }
  if (r.runs.empty()) r.runs.push_back(r.run);
  if (auto it = doc.find("totals"); it != doc.end()) detail::object_from_json<Error>(*it, r, detail::kTotalsFields, src + ": totals");
  auto sites = doc.find("sites");
  if (sites == doc.end() || !sites->is_array()) throw Error(src + ": \"sites\" must be an array");
  return r;
}

// The same for report JSON text.
template <typename Error>
Report parse(std::string_view text, std::string_view source, std::string_view wrong_schema_hint = {}) {
  return parse_input<Error>(text, source, wrong_schema_hint);
}

}  // namespace synclint::report_schema
