#include "injection_fixture.h"

#include <algorithm>
#include <fstream>

namespace synclint::probe::inject {
namespace {

// The stand-in CUPTI's log of what the probe switched (FAKE_CUPTI_LOG); removes it.
SwitchLog read_switch_log(const fs::path& log) {
  std::ifstream in(log);
  SwitchLog switches;
  std::string what;
  std::uint64_t ns = 0;
  while (in >> what >> ns) switches.emplace_back(what, ns);
  fs::remove(log);
  return switches;
}

}  // namespace

std::optional<SwitchLog> play_logged(const Env& env, const char* steps, std::string& out, bool with_stderr) {
  const fs::path log = fs::temp_directory_path() / ("fake-cupti-" + std::to_string(getpid()) + ".log");
  fs::remove(log);
  for (const auto& [name, value] : env) setenv(name, value, 1);
  setenv("FAKE_CUPTI_LOG", log.c_str(), 1);
  std::vector<std::string> argv = {FAKE_CUDA_HOST, PROBE_LIBRARY, FAKE_CUPTI, steps};
  if (with_stderr) argv.insert(argv.begin(), {"/bin/sh", "-c", "exec \"$@\" 2>&1", "sh"});
  const bool ran = run_capture(argv, out);
  for (const auto& [name, value] : env) unsetenv(name);
  unsetenv("FAKE_CUPTI_LOG");
  auto switches = read_switch_log(log);
  if (!ran) return std::nullopt;
  return switches;
}

std::size_t occurrences(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

std::optional<ProbeReport> report_named_in(const std::string& out) {
  const auto at = out.find(" report ");
  if (at == std::string::npos) return std::nullopt;
  return read_report(out.substr(at + 8, out.find('\n', at) - at - 8));
}

std::optional<RecordSwitches> play_record_setting(Env setting, const char* steps) {
  RecordSwitches r;
  for (const auto& [name, value] : {std::pair{"SYNCLINT_PROBE_SAMPLE", "0.01"}, {"SYNCLINT_PROBE_SAMPLE_MS", "20"}, {"SYNCLINT_PROBE_DEBUG", "1"}})
    if (std::none_of(setting.begin(), setting.end(), [&](const auto& s) { return std::string(s.first) == name; }))
      setting.emplace_back(name, value);  // the defaults of these runs, unless the setting has its own
  const auto played = play_logged(setting, steps, r.out, true);
  const auto records_at = r.out.find("gpu records ");
  std::optional<ProbeReport> report = report_named_in(r.out);
  if (!played || records_at == std::string::npos || !report) {
    ADD_FAILURE() << r.out;
    return std::nullopt;
  }
  for (const auto& [event, at] : *played) {
    r.enables += event == "enable";
    r.disables += event == "disable";
    r.disables_on_host += event == "disable-on-host-thread";
    r.off_inside += event == "callback-off-inside";
    r.callbacks_off += event == "callback-off";
  }
  r.records = std::strtoull(r.out.c_str() + records_at + 12, nullptr, 10);
  if (const auto at = r.out.find("modelled GPU activities "); at != std::string::npos) {
    char* rest = nullptr;
    const std::uint64_t n = std::strtoull(r.out.c_str() + at + 24, &rest, 10);
    r.modelled.emplace(n, std::strtoull(rest + 2, nullptr, 10));
  }
  r.report = std::move(*report);
  return r;
}

std::optional<SwitchCounts> switch_counts(const std::string& out) {
  const std::string sync = "launch callbacks switched by a sync ", window = "by the window thread ",
                    launch = "launch callbacks switched off at a launch's return ";
  const auto sync_at = out.find(sync);
  if (sync_at == std::string::npos) return std::nullopt;
  const auto window_at = out.find(window, sync_at);
  const auto launch_at = out.find(launch);
  if (window_at == std::string::npos || launch_at == std::string::npos) return std::nullopt;
  SwitchCounts c;
  c.by_sync = std::strtoul(out.c_str() + sync_at + sync.size(), nullptr, 10);
  c.by_window = std::strtoul(out.c_str() + window_at + window.size(), nullptr, 10);
  c.by_launch = std::strtoul(out.c_str() + launch_at + launch.size(), nullptr, 10);
  return c;
}

}  // namespace synclint::probe::inject
