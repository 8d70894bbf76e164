// `synclint probe [-o report.json] [--trace trace.json] [--keep-dir DIR] -- CMD ARGS...`: runs CMD with
// the CUPTI probe injected (CUDA_INJECTION64_PATH), merges the per-process reports it leaves, writes the
// merged report and prints the ranked table. `probe merge` combines reports, `probe report` prints one.
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "analysis/report_io.h"
#include "analysis/stream_io.h"
#include "analysis/trace.h"
#include "commands.h"
#include "output_file.h"

// Whether this build made the injection library (tools/synclint/CMakeLists.txt: only where CUPTI was found).
#ifndef SYNCLINT_PROBE_LIBRARY_BUILT
#define SYNCLINT_PROBE_LIBRARY_BUILT 1
#endif
#include "inject/options.h"

extern char** environ;

namespace synclint::cli {
namespace {

namespace fs = std::filesystem;
using probe::ProbeReport;

constexpr const char* kProbeLibrary = "libsynclint_probe.so";

struct ProbeArgs {
  std::string output = "synclint-probe.json";
  std::string trace;
  std::string keep_dir;
  std::string torch_ops;  // the LibTorch shim (SYNCLINT_PROBE_TORCH_OPS)
  std::string gpu_records;  // SYNCLINT_PROBE_GPU_RECORDS: model, first, all or none (empty: the probe's default)
  std::size_t top = 30;
  std::vector<std::string> merge_inputs;
  std::string merge_output;
  std::string report_input;
  std::vector<std::string> command;
  std::vector<std::string> streams;
  std::string analyze_output;
  std::optional<std::uint64_t> callback_ns;  // probe analyze --callback-ns
  bool print_library = false;  // --print-library
};

// The injection library: SYNCLINT_PROBE_LIBRARY, else next to this executable in a build tree
// (<build>/tools/synclint/synclint -> <build>/runtime_probe/inject/) or an install (<prefix>/bin ->
// <prefix>/lib[/synclint]).
fs::path find_probe_library() {
  if (const char* env = std::getenv("SYNCLINT_PROBE_LIBRARY"); env && *env) {
    if (!fs::is_regular_file(env))
      throw std::runtime_error(std::string("SYNCLINT_PROBE_LIBRARY names ") + env + ", which is not a file");
    return fs::absolute(env);
  }
#if !SYNCLINT_PROBE_LIBRARY_BUILT
  throw std::runtime_error(std::string("probe: this synclint was built without its probe library, ") + kProbeLibrary +
                           ": " + SYNCLINT_PROBE_LIBRARY_MISSING +
                           ".\nTo run a program under the probe, install the CUDA toolkit (with CUPTI), configure again "
                           "with -DSYNCLINT_CUDA_ROOT=<the toolkit's folder> (default /usr/local/cuda) and rebuild, "
                           "or set SYNCLINT_PROBE_LIBRARY to a libsynclint_probe.so built elsewhere. `probe report`, "
                           "`probe merge` and `probe analyze` work without it.");
#endif
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  std::vector<fs::path> tried;
  if (!ec) {
    const fs::path dir = exe.parent_path();
    for (const fs::path& candidate :
         {dir / "../../runtime_probe/inject" / kProbeLibrary, dir / "../runtime_probe/inject" / kProbeLibrary,
          dir / "../lib/synclint" / kProbeLibrary, dir / "../lib" / kProbeLibrary, dir / kProbeLibrary}) {
      const fs::path p = candidate.lexically_normal();
      if (fs::is_regular_file(p, ec)) return p;
      tried.push_back(p);
    }
  }
  std::string list;
  for (const auto& p : tried) list += "\n  " + p.string();
  throw std::runtime_error(std::string("cannot find ") + kProbeLibrary + " (looked in:" + list +
                           "\n); build it (runtime_probe/inject, needs the CUDA toolkit with CUPTI) or set "
                           "SYNCLINT_PROBE_LIBRARY");
}

// The child's pid while it runs, for the signal handler.
volatile sig_atomic_t g_child = 0;

// Ctrl-C from the terminal reaches the whole process group, the child included: only signals sent to
// synclint alone (kill, a scheduler's SIGTERM) are forwarded, so the child never gets one twice.
void forward_signal(int sig, siginfo_t* info, void*) {
  if (g_child > 0 && info != nullptr && (info->si_code == SI_USER || info->si_code == SI_QUEUE)) ::kill(g_child, sig);
}

// How the probed command ended: its exit status (128+N when killed by signal N, as a shell reports it).
struct ChildEnd {
  int status = 0;
  int signal = 0;  // the signal that killed it, or 0
};

// "status 3", or "signal 11 (SIGSEGV, Segmentation fault)".
std::string describe(const ChildEnd& end) {
  if (end.signal == 0) return "status " + std::to_string(end.status);
  std::string s = "signal " + std::to_string(end.signal);
  const char* abbrev = ::sigabbrev_np(end.signal);
  const char* text = ::sigdescr_np(end.signal);
  if (abbrev != nullptr) s += std::string(" (SIG") + abbrev + (text != nullptr ? std::string(", ") + text : "") + ")";
  return s;
}

// Runs `argv` with the extra environment; returns how it ended.
ChildEnd run_child(const std::vector<std::string>& argv, const std::vector<std::pair<std::string, std::string>>& env_set) {
  std::vector<std::string> env;
  for (char** e = environ; e && *e; ++e) {
    const std::string entry(*e);
    bool replaced = false;
    for (const auto& [key, value] : env_set) replaced = replaced || entry.starts_with(key + "=");
    if (!replaced) env.push_back(entry);
  }
  for (const auto& [key, value] : env_set) env.push_back(key + "=" + value);
  std::vector<char*> envp, args;
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::vector<std::string> argv_copy = argv;
  for (auto& a : argv_copy) args.push_back(a.data());
  args.push_back(nullptr);

  struct sigaction sa {}, old_int {}, old_term {};
  sa.sa_sigaction = forward_signal;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, &old_int);
  sigaction(SIGTERM, &sa, &old_term);
  pid_t pid = 0;
  const int err = ::posix_spawnp(&pid, args[0], nullptr, nullptr, args.data(), envp.data());
  if (err != 0) {
    sigaction(SIGINT, &old_int, nullptr);
    sigaction(SIGTERM, &old_term, nullptr);
    throw std::runtime_error("cannot run " + argv[0] + ": " + std::strerror(err));
  }
  g_child = pid;
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  g_child = 0;
  sigaction(SIGINT, &old_int, nullptr);
  sigaction(SIGTERM, &old_term, nullptr);
  if (WIFEXITED(status)) return {WEXITSTATUS(status), 0};
  if (WIFSIGNALED(status)) return {128 + WTERMSIG(status), WTERMSIG(status)};
  return {1, 0};
}

std::vector<fs::path> files_named(const fs::path& dir, const std::string& prefix) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name.starts_with(prefix) && name.ends_with(".json")) out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// A temporary folder removed on scope exit unless it was asked for (--keep-dir).
class ProbeDir {
 public:
  explicit ProbeDir(const std::string& keep) {
    if (!keep.empty()) {
      path_ = fs::absolute(keep);
      fs::create_directories(path_);
      if (!files_named(path_, "report-").empty())
        throw std::runtime_error("--keep-dir " + keep + " already holds probe reports; give an empty folder");
      return;
    }
    const char* tmp = std::getenv("TMPDIR");
    std::string templ = (fs::path(tmp && *tmp ? tmp : "/tmp") / "synclint-probe-XXXXXX").string();
    if (::mkdtemp(templ.data()) == nullptr)
      throw std::runtime_error("cannot create a temporary folder in " + fs::path(templ).parent_path().string() + ": " +
                               std::strerror(errno));
    path_ = templ;
    remove_ = true;
  }
  ~ProbeDir() {
    std::error_code ec;
    if (remove_) fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }
  void keep() { remove_ = false; }  // the per-process files are all that is left of a run

 private:
  fs::path path_;
  bool remove_ = false;
};

std::vector<ProbeReport> read_reports(const std::vector<fs::path>& files) {
  std::vector<ProbeReport> reports;
  for (const auto& f : files) {
    try {
      reports.push_back(probe::read_report(f));
    } catch (const probe::ProbeError& e) {
      std::cerr << "synclint probe: skipping " << f.filename().string() << ": " << e.what() << "\n";
    }
  }
  return reports;
}

// Explains a report without usable data; returns false when there is nothing to rank.
bool explain_status(const ProbeReport& report) {
  const std::string& status = report.run.status;
  if (status == "ok") return true;
  if (status.starts_with("cupti-unavailable")) {
    std::cerr << "synclint probe: no measurements: " << status << "\n";
    if (status.find("MULTIPLE_SUBSCRIBERS") != std::string::npos || status.find("subscriber") != std::string::npos)
      std::cerr << "  another profiler holds CUPTI in this process (torch.profiler, nsys, ncu, "
                   "compute-sanitizer); run without it\n";
    return !report.sites.empty();
  }
  std::cerr << "synclint probe: warning: " << status << "\n";
  return true;
}

void print_report(const ProbeReport& report, std::size_t top) {
  if (!explain_status(report) && report.sites.empty()) return;
  std::cout << probe::format_table(report, top);
  if (report.sites.empty() && report.run.status == "ok")
    std::cout << "no host-blocking CUDA call was seen: nothing to rank\n";
}

// Writes the merged report and the trace; when that fails, keeps the per-process files and says where.
void write_outputs(const ProbeArgs& a, const ProbeReport& merged, ProbeDir& dir) {
  try {
    write_output_file(a.output, probe::report_to_json(merged));
  } catch (const std::runtime_error& e) {
    dir.keep();
    throw std::runtime_error(std::string(e.what()) + "; the per-process reports are kept in " + dir.path().string() +
                             " (synclint probe merge -o FILE " + (dir.path() / "report-*.json").string() + ")");
  }
  if (a.trace.empty()) return;
  std::vector<std::string> traces;
  for (const auto& f : files_named(dir.path(), "trace-")) traces.push_back(probe::read_text_file(f));
  if (traces.empty()) {
    std::cerr << "synclint probe: no trace was written (no GPU activity was recorded, or the probe could not write "
                 "it: see its messages above)\n";
    return;
  }
  const std::string trace = probe::merge_traces(traces);
  try {
    write_output_file(a.trace, trace);
  } catch (const std::runtime_error& e) {
    dir.keep();
    throw std::runtime_error(std::string(e.what()) + "; the report is in " + a.output +
                             ", the per-process traces are kept in " + dir.path().string());
  }
  if (probe::trace_truncated(trace))
    std::cerr << "synclint probe: the trace stops at its event limit (" << probe::TraceWriter::kDefaultEventLimit
              << " events per process, the run's first windows); the report covers the whole run\n";
}

int run_probe(const ProbeArgs& a, std::vector<std::string> command) {
  if (command.empty())
    throw std::runtime_error("probe: no command to run; usage: synclint probe [-o report.json] [--trace trace.json] -- CMD ARGS...");
  check_output_writable(a.output, "report");
  if (!a.trace.empty()) check_output_writable(a.trace, "trace");
  const fs::path library = find_probe_library();
  ProbeDir dir(a.keep_dir);
  std::vector<std::pair<std::string, std::string>> env = {{"CUDA_INJECTION64_PATH", library.string()},
                                                          {"SYNCLINT_PROBE_DIR", dir.path().string()}};
  if (!a.trace.empty()) env.emplace_back("SYNCLINT_PROBE_TRACE", "1");
  if (!a.torch_ops.empty()) env.emplace_back("SYNCLINT_PROBE_TORCH_OPS", fs::absolute(a.torch_ops).string());
  if (!a.gpu_records.empty()) env.emplace_back("SYNCLINT_PROBE_GPU_RECORDS", a.gpu_records);
  if (const char* other = std::getenv("CUDA_INJECTION64_PATH"); other && *other && library != fs::path(other))
    std::cerr << "synclint probe: replacing CUDA_INJECTION64_PATH=" << other << " for the probed command\n";
  const ChildEnd end = run_child(command, env);
  const int child_status = end.status;

  const auto files = files_named(dir.path(), "report-");
  std::vector<ProbeReport> reports = read_reports(files);
  int result = child_status;
  if (reports.empty()) {
    std::cerr << "synclint probe: no report was written: " << command.front();
    if (end.signal != 0) {
      std::cerr << " was killed by " << describe(end) << " before it could write one";
      if (end.signal == SIGSEGV || end.signal == SIGBUS || end.signal == SIGILL || end.signal == SIGABRT)
        std::cerr << "; with SYNCLINT_PROBE_DEBUG=1 the probe prints the faulting thread's stack (a known crash "
                     "inside CUPTI: docs/probe.md, \"A crash in CUPTI\")";
    } else {
      std::cerr << " made no CUDA calls (the driver loads the probe when a process initializes CUDA), or it ended "
                   "before the probe could write one";
      if (child_status != 0) std::cerr << "; it exited with status " << child_status;
    }
    std::cerr << "\n";
    return child_status != 0 ? child_status : kExitError;
  }
  const ProbeReport merged = probe::merge(reports);
  print_report(merged, a.top);  // first, so that the table is seen even if the files cannot be written
  const auto how_it_ended = [&] {
    if (child_status != 0)
      std::cerr << "synclint probe: " << command.front() << (end.signal != 0 ? " was killed by " : " exited with ")
                << describe(end) << "\n";
  };
  try {
    write_outputs(a, merged, dir);
  } catch (const std::runtime_error& e) {  // the program's own exit status still stands
    std::cerr << "synclint: error: " << e.what() << "\n";
    how_it_ended();
    return child_status != 0 ? child_status : kExitError;
  }
  std::cerr << "synclint probe: report written to " << a.output
            << (a.trace.empty() ? "" : ", trace to " + a.trace) << "\n";
  how_it_ended();
  if (result == 0 && merged.run.status.starts_with("cupti-unavailable") && merged.sites.empty()) result = kExitError;
  return result;
}

// `probe settings`: every setting with its type, default and meaning, or the user settings as markdown.
int print_probe_settings(bool markdown) {
  using namespace probe::inject;
  if (markdown) {
    std::cout << settings_markdown();
    return kExitClean;
  }
  for (const Setting& s : settings()) {
    static constexpr const char* kTypes[] = {"flag", "number", "string", "enum"};
    std::cout << s.name << " (" << kTypes[static_cast<int>(s.type)]
              << (s.kind == SettingKind::Diagnostic ? ", diagnostic" : "")
              << "; default: " << (s.default_value.empty() ? "unset" : s.default_value) << ")\n    " << s.doc << "\n";
  }
  return kExitClean;
}

}  // namespace

void add_probe_command(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<ProbeArgs>();
  auto* cmd = app.add_subcommand("probe", "Run a CUDA program with the runtime probe and rank its sync sites by measured cost");
  cmd->footer("Usage: synclint probe [-o report.json] [--trace trace.json] [--keep-dir DIR] [--torch-ops SHIM]\n"
              "                      [--gpu-records model|first|all|none] -- CMD ARGS...\n"
              "       synclint probe merge -o out.json a.json b.json...\n"
              "       synclint probe report report.json\n"
              "       synclint probe analyze stream.json...\n"
              "Report schema, trace format and the cost model: docs/probe.md"
#if !SYNCLINT_PROBE_LIBRARY_BUILT
              "\nThis synclint was built without the probe library (" SYNCLINT_PROBE_LIBRARY_MISSING "):\n"
              "running a program needs it; merge, report and analyze do not"
#endif
  );
  cmd->add_option("-o,--output", args->output, "Where to write the merged report (JSON)")->capture_default_str();
  cmd->add_option("--trace", args->trace, "Also write a Chrome trace-event file (open it in Perfetto)");
  cmd->add_option("--keep-dir", args->keep_dir, "Keep the per-process reports, streams and traces in this folder");
  cmd->add_option("--torch-ops", args->torch_ops,
                  "C++ LibTorch programs: time each read's host work (.item(), if (t)) through this shim, "
                  "libsynclint_torch_ops.so built against the program's own LibTorch (docs/probe.md)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--gpu-records", args->gpu_records,
                  "Where the GPU's activity records are on: first (the default: the first stretch, later ones "
                  "modelled from what it measured), model (none: the GPU timeline modelled from the syncs alone, "
                  "several times too high for a GPU-bound loop), all (every stretch), none (nothing of the GPU); "
                  "with --trace the default is all (docs/probe.md)")
      ->check(CLI::IsMember({"model", "first", "all", "none"}));
  cmd->add_option("--top", args->top, "Rows of the table (0: all)")->capture_default_str();
  cmd->add_flag("--print-library", args->print_library,
                "Print the path of the probe library a run would inject (SYNCLINT_PROBE_LIBRARY, else found "
                "beside this executable) and exit");
  cmd->add_option("command", args->command, "The command to run with the probe, after --");
  cmd->prefix_command();

  auto* merge = cmd->add_subcommand("merge", "Combine per-process probe reports (ranks, workers) into one");
  merge->prefix_command(false);
  merge->add_option("-o,--output", args->merge_output, "The merged report")->required();
  merge->add_option("reports", args->merge_inputs, "Reports to merge")->required()->check(CLI::ExistingFile);
  merge->callback([args, &exit_code] {
    std::vector<ProbeReport> reports;
    for (const auto& f : args->merge_inputs) reports.push_back(probe::read_report(f));
    const ProbeReport merged = probe::merge(reports);
    write_output_file(args->merge_output, probe::report_to_json(merged));
    std::cerr << "synclint probe merge: " << reports.size() << " reports, " << merged.sites.size() << " sites -> "
              << args->merge_output << "\n";
    exit_code = kExitClean;
  });

  auto* report = cmd->add_subcommand("report", "Print the ranked table of a probe report");
  report->prefix_command(false);
  report->add_option("report", args->report_input, "The report")->required()->check(CLI::ExistingFile);
  report->add_option("--top", args->top, "Rows of the table (0: all)")->capture_default_str();
  report->callback([args, &exit_code] {
    print_report(probe::read_report(args->report_input), args->top);
    exit_code = kExitClean;
  });

  auto* analyze = cmd->add_subcommand("analyze", "Analyse recorded event streams (SYNCLINT_PROBE_RECORD=1) offline");
  analyze->prefix_command(false);
  analyze->add_option("streams", args->streams, "stream-*.json files, one per process")->required()->check(CLI::ExistingFile);
  analyze->add_option("-o,--output", args->analyze_output, "Also write the merged report here");
  analyze->add_option("--top", args->top, "Rows of the table (0: all)")->capture_default_str();
  analyze->add_option("--callback-ns", args->callback_ns,
                      "The probe's time around each recorded call, taken out of the replayed host gaps "
                      "(default: the stream's callback_overhead_ns; 0: none)");
  analyze->callback([args, &exit_code] {
    std::vector<ProbeReport> reports;
    for (const auto& f : args->streams) {
      probe::RunInfo run;
      run.status = "ok";
      probe::EventStream stream = probe::read_stream(f);
      if (args->callback_ns) stream.callback_overhead_ns = *args->callback_ns;
      reports.push_back(probe::analyze(stream, run));
    }
    const ProbeReport merged = probe::merge(reports);
    if (!args->analyze_output.empty()) write_output_file(args->analyze_output, probe::report_to_json(merged));
    print_report(merged, args->top);
    std::cout << "replay error: " << merged.replay_error * 100 << "%\n";
    exit_code = kExitClean;
  });

  // Hidden: the probe's environment settings; --markdown prints the user settings' table of docs/probe.md.
  auto* settings = cmd->add_subcommand("settings", "The probe's environment settings")->group("");
  settings->prefix_command(false);
  auto markdown = std::make_shared<bool>(false);
  settings->add_flag("--markdown", *markdown, "Only the user settings, as the markdown table of docs/probe.md");
  settings->callback([markdown, &exit_code] {
    exit_code = print_probe_settings(*markdown);
  });

  cmd->callback([cmd, merge, report, analyze, settings, args, &exit_code] {
    if (merge->parsed() || report->parsed() || analyze->parsed() || settings->parsed()) return;
    if (args->print_library) {
      std::cout << find_probe_library().string() << "\n";
      exit_code = kExitClean;
      return;
    }
    // CLI11 keeps the `--` that ended synclint's options among the remaining arguments (first, as it
    // was seen first); the command itself went to the `command` positional or, from its first
    // option on, to the remaining arguments.
    std::vector<std::string> rest = cmd->remaining();
    if (!rest.empty() && rest.front() == "--") rest.erase(rest.begin());
    std::vector<std::string> command = args->command;
    for (auto& extra : rest) command.push_back(std::move(extra));
    exit_code = run_probe(*args, std::move(command));
  });
}

}  // namespace synclint::cli
