// The injection end to end, shared by the injection tests: a host program loads libsynclint_probe.so as
// the CUDA driver would and calls InitializeInjection. There is no GPU driver here, so the real CUPTI
// cannot subscribe; with a stand-in CUPTI (fake_cupti.cpp) the probe's whole callback path runs, and
// fake_cuda_host plays a training loop through it.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "analysis/report_io.h"
#include "symbolizer.h"

namespace synclint::probe::inject {

namespace fs = std::filesystem;

class Injection : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("synclint-inject-" + std::to_string(getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    setenv("SYNCLINT_PROBE_DIR", dir_.c_str(), 1);
    for (const char* v : {"RANK", "LOCAL_RANK", "SLURM_PROCID", "SYNCLINT_CUPTI_PATH", "FAKE_CUPTI_BUSY", "SYNCLINT_PROBE_SKIP",
                          "SYNCLINT_PROBE_GPU_RECORDS"})
      unsetenv(v);
  }
  void TearDown() override {
    unsetenv("SYNCLINT_PROBE_DIR");
    for (const char* v : {"RANK", "SYNCLINT_CUPTI_PATH", "FAKE_CUPTI_BUSY", "FAKE_CUPTI_DROPPED", "SYNCLINT_PROBE_SKIP",
                          "SYNCLINT_PROBE_LIBRARY", "SYNCLINT_PROBE_GPU_RECORDS"})
      unsetenv(v);
    fs::remove_all(dir_);
  }
  // The stand-in CUPTI (fake_cupti.cpp) for the probe; it plays the CUDA runtime, so its frames are not
  // the user's code. With `cli`, also the probe library for `synclint probe` and a folder for its output.
  void use_stand_in_cupti(bool cli = false) {
    setenv("SYNCLINT_CUPTI_PATH", FAKE_CUPTI, 1);
    setenv("SYNCLINT_PROBE_SKIP", "+fake_cupti", 1);
    if (!cli) return;
    setenv("SYNCLINT_PROBE_LIBRARY", PROBE_LIBRARY, 1);
    fs::create_directories(dir_);
  }
  // Runs the host; returns its pid (printed first) and whether it exited 0.
  std::string run_host(bool& ok, const char* extra = nullptr) {
    std::string out;
    std::vector<std::string> argv = {PROBE_INJECT_HOST, PROBE_LIBRARY};
    if (extra != nullptr) argv.emplace_back(extra);
    ok = run_capture(argv, out);
    return out.substr(0, out.find('\n'));
  }
  // The report of the process whose output (its pid first) is `out`.
  fs::path report_of(const std::string& out) const { return dir_ / ("report-" + out.substr(0, out.find('\n')) + ".json"); }
  fs::path dir_;
};

// Settings for a played run: (name, value) pairs, set for the run and unset afterwards.
using Env = std::vector<std::pair<const char*, const char*>>;
// The stand-in CUPTI's log of what the probe switched: (event, ns) in order.
using SwitchLog = std::vector<std::pair<std::string, std::uint64_t>>;

// Plays `steps` steps of fake_cuda_host under the probe and the stand-in CUPTI with the settings `env`
// (unset afterwards) and the stand-in's switch log on; `out` gets the host's output (with stderr when
// `with_stderr`). Returns the log, or nothing when the host failed.
std::optional<SwitchLog> play_logged(const Env& env, const char* steps, std::string& out, bool with_stderr = false);

// How often `what` occurs in `text`.
std::size_t occurrences(const std::string& text, const std::string& what);

// A sampled run of 1500 steps with 20 ms stretches every 2 s (unless the setting says otherwise) and the
// given record setting, with SYNCLINT_PROBE_DEBUG=1: how often the kernel records were switched on and off,
// the GPU records the probe kept, its stderr and its report.
struct RecordSwitches {
  std::size_t enables = 0, disables = 0;
  std::size_t disables_on_host = 0;  // of the disables, those made on the thread that played the API calls
  std::size_t off_inside = 0;  // callbacks switched off while a thread was inside their call
  std::size_t callbacks_off = 0;  // runtime API callbacks switched off (with FAKE_CUPTI_LOG_CALLBACKS=1)
  std::uint64_t records = 0;
  // With the GPU model, its debug line "modelled GPU activities N (M without a learned duration)": N, M.
  std::optional<std::pair<std::uint64_t, std::uint64_t>> modelled;
  std::string out;
  ProbeReport report;
};
std::optional<RecordSwitches> play_record_setting(Env setting, const char* steps = "1500");

// The report the probe's debug line at exit names ("... report PATH"), read; nullopt when there is none.
std::optional<ProbeReport> report_named_in(const std::string& out);

// From the probe's debug lines at exit, how often a sync, a launch's return and the window thread switched
// the launch callbacks; nullopt when a line is missing.
struct SwitchCounts {
  unsigned long by_sync = 0, by_launch = 0, by_window = 0;
};
std::optional<SwitchCounts> switch_counts(const std::string& out);

}  // namespace synclint::probe::inject
