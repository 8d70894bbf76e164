// The probe's files at the end: the report (the recorder's accumulated analysis), the recorded stream, the
// trace's closing, and with SYNCLINT_PROBE_DEBUG the counters of the probe's own work on stderr.
#include <sys/resource.h>

#include <cstdio>
#include <exception>
#include <filesystem>
#include <string>

#include "analysis/report_io.h"
#include "analysis/stream_io.h"
#include "output.h"
#include "probe_state.h"
#include "sched_delay.h"

namespace synclint::probe::inject {

// What the report says until the final one replaces it: every way a process can end without running the
// probe's exit path leaves this one.
constexpr const char* kUnfinished =
    "partial: the probe's final report was not written (the process ended by a signal the probe does not catch, "
    "such as SIGKILL or SIGSEGV, by _exit or exec, or the report could not be saved): no measurements";

void write_started_report() {
  Probe& p = *g;
  ProbeReport report;
  report.run = p.run;
  report.run.status = kUnfinished;
  report.runs.push_back(report.run);
  std::string error;
  if (!write_file_atomic(output_file(p.options.dir, "report", p.run.pid, p.run.rank), report_to_json(report), error))
    report_error(error);
}

void write_outputs() {
  Probe& p = *g;
  RunInfo run = p.run;
  run.status = p.status;
  ProbeReport report = p.rec != nullptr ? p.rec->finish(run) : ProbeReport{};
  if (p.rec == nullptr) report.run = run;
  std::string error;
  auto report_path = output_file(p.options.dir, "report", p.run.pid, p.run.rank);
  try {
    if (!write_file_atomic(report_path, report_to_json(report), error)) report_error(error);
  } catch (const std::exception& ex) {
    report_error(std::string("cannot write the report: ") + ex.what());
  }
  if (p.rec != nullptr && p.rec->options().record_max_calls > 0) {
    bool truncated = false;
    EventStream s = p.rec->recorded(truncated);
    try {
      if (!write_file_atomic(output_file(p.options.dir, "stream", p.run.pid, p.run.rank), stream_to_json(s), error))
        report_error(error);
    } catch (const std::exception& ex) {
      report_error(std::string("cannot write the stream: ") + ex.what());
    }
  }
  if (p.trace) {
    p.trace->finish();
    p.trace_out.close();
    std::error_code ec;
    if (!std::filesystem::exists(p.trace_path, ec))
      report_error("the trace " + p.trace_path.string() + " was removed while the program ran: it is lost");
  }
  if (p.debug && p.gpu_model)
    std::fprintf(stderr, "synclint probe: modelled GPU activities %llu (%llu without a learned duration)\n",
                 static_cast<unsigned long long>(report.modelled_gpu_activities),
                 static_cast<unsigned long long>(report.modelled_without_duration));
  if (p.debug && p.gpu_model && p.rec != nullptr)
    std::fprintf(stderr, "synclint probe: %s\n", p.rec->model_summary().c_str());
  if (p.debug) {
    std::fprintf(stderr,
                 "synclint probe: sync-path callbacks: %llu entered (the last at %.1f ms), %llu recorded (the last at %.1f ms)\n",
                 static_cast<unsigned long long>(p.sync_path_enters.load()), ms_since_start(p.last_sync_path_enter.load()),
                 static_cast<unsigned long long>(p.sync_path_recorded.load()), ms_since_start(p.last_sync_path_recorded.load()));
    auto tally = [&](const char* what, const Probe::Tally& t) {
      std::fprintf(stderr, "synclint probe: %s %llu, %.1f ms in all, the last ending at %.1f ms\n", what,
                   static_cast<unsigned long long>(t.count.load()), static_cast<double>(t.ns.load()) / 1e6,
                   ms_since_start(t.last_end.load()));
    };
    tally("site captures over 100 us (on the program's thread):", p.slow_captures);
    tally("window cuts (on the window thread: symbolizing and the analysis):", p.cuts);
    tally("symbolizing new sites (as they come, on the resolver thread, and in the cuts):", p.symbolizing);
    if (p.native)
      std::fprintf(stderr, "synclint probe: symbolizer tool processes started: %zu\n", p.native->symbolizer().tools_started());
    // The window thread's CPU as of its last wake-up (the final cut may run on the exiting thread); the
    // reaped children include the symbolizer tools, ended before this line.
    char init_thread_ms[32] = "?";  // "?" once that thread has ended
    if (const auto ns = p.init_thread_clock_ok ? clock_ns(p.init_thread_clock) : std::nullopt)
      std::snprintf(init_thread_ms, sizeof init_thread_ms, "%.1f", static_cast<double>(*ns) / 1e6);
    std::fprintf(stderr,
                 "synclint probe: CPU time: process %.1f ms (%.1f ms before the probe started, %.1f ms in its "
                 "start-up of %.1f ms), the thread that started it %s ms, window thread %.1f ms, reaped children "
                 "%.1f ms\n",
                 cpu_ms(RUSAGE_SELF), p.cpu_before_ms, p.startup_cpu_ms, p.startup_wall_ms,
                 init_thread_ms,
                 static_cast<double>(p.window_cpu_ns.load()) / 1e6, cpu_ms(RUSAGE_CHILDREN));
    std::fprintf(stderr, "synclint probe: blocking calls descheduled inside %llu times, %.1f ms in all%s\n",
                 static_cast<unsigned long long>(p.descheduled_calls.load()),
                 static_cast<double>(p.descheduled_ns.load()) / 1e6,
                 run_delay_unavailable() ? " (no /proc/thread-self/schedstat: not measured)" : "");
  }
  if (p.debug && p.switch_at_sync)
    std::fprintf(stderr, "synclint probe: launch callbacks switched by a sync %llu times, by the window thread %llu times; "
                 "the syncs' switches took %.1f us in all\n",
                 static_cast<unsigned long long>(p.switched_by_sync.load()),
                 static_cast<unsigned long long>(p.switched_by_window.load()),
                 static_cast<double>(p.switched_by_sync_ns.load()) / 1e3);
  if (p.debug && p.switch_at_sync)
    std::fprintf(stderr, "synclint probe: launch callbacks switched off at a launch's return %llu times\n",
                 static_cast<unsigned long long>(p.switched_by_launch.load()));
  if (p.debug && p.switch_at_sync)
    std::fprintf(stderr, "synclint probe: GPU records switched off on the program's thread %llu times\n",
                 static_cast<unsigned long long>(p.records_off_by_program.load()));
  if (p.debug && p.queued_count.load() > 0)
    std::fprintf(stderr, "synclint probe: %llu kernels with a queued timestamp, queued to start %.2f us on average\n",
                 static_cast<unsigned long long>(p.queued_count.load()),
                 static_cast<double>(p.queued_lag_ns.load()) / 1e3 / static_cast<double>(p.queued_count.load()));
  if (p.debug) {
    std::fprintf(stderr,
                 "synclint probe: pid %lld status '%s' host calls %llu gpu records %llu windows %llu sites %zu "
                 "site captures %llu (%.2f us each) exit callbacks %llu (%.2f us each) native walks %llu fast %llu full (%s) "
                 "symbolizer %s report %s\n",
                 static_cast<long long>(p.run.pid), p.status.c_str(),
                 static_cast<unsigned long long>(p.rec ? p.rec->host_calls_seen() : 0),
                 static_cast<unsigned long long>(p.gpu_records.load()),
                 static_cast<unsigned long long>(p.rec ? p.rec->windows() : 0), report.sites.size(),
                 static_cast<unsigned long long>(p.site_count.load()),
                 p.site_count.load() ? static_cast<double>(p.site_ns.load()) / 1e3 / static_cast<double>(p.site_count.load()) : 0.0,
                 static_cast<unsigned long long>(p.exit_count.load()),
                 p.exit_count.load() ? static_cast<double>(p.exit_ns.load()) / 1e3 / static_cast<double>(p.exit_count.load()) : 0.0,
                 static_cast<unsigned long long>(p.native ? p.native->fast_walks() : 0),
                 static_cast<unsigned long long>(p.native ? p.native->full_walks() : 0),
                 p.native ? p.native->fallback_summary().c_str() : "-",
                 p.native ? (p.native->symbolizer().tool_path().empty() ? "none (dladdr)"
                                                                         : p.native->symbolizer().tool_path().c_str())
                          : "-",
                 report_path.c_str());
  }
}

}  // namespace synclint::probe::inject
