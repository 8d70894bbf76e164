// `synclint check [PATH...]`: runs the engine, filters by --min-severity, writes the chosen format to
// stdout or atomically to -o FILE, and maps the outcome to the exit status.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cerrno>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "core/compile_error.h"
#include "commands.h"
#include "core/catalog.h"
#include "core/config.h"
#include "core/suggest.h"
#include "emit/emit.h"
#include "engine/engine.h"
#include "output_file.h"

namespace synclint::cli {
namespace {

namespace fs = std::filesystem;

class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct CheckArgs {
  std::vector<std::string> paths;
  std::string format = "text";
  std::string output;
  unsigned jobs = 0;
  std::string min_severity = "note";
  bool exit_zero = false;
  bool statistics = false;
  bool all = false;
  std::string config;
  std::string costs;
  std::vector<std::string> path_maps;
  std::string color = "auto";
  std::vector<std::string> select;
  std::vector<std::string> ignore;
  bool no_progress = false;
  // C++: compile flags, as clang-tidy takes them.
  std::string build_path;
  std::vector<std::string> extra_args;
  std::vector<std::string> extra_args_before;
  std::string header_filter;
  bool quiet = false;
  std::optional<std::vector<std::string>> fixed_args;  // after `--`
};

emit::Format parse_format_or_throw(const std::string& name) {
  if (auto f = emit::parse_format(name)) return *f;
  std::vector<std::string> names;
  std::string list;
  for (emit::Format f : emit::all_formats()) {
    names.emplace_back(emit::to_string(f));
    list += (list.empty() ? "" : ", ") + names.back();
  }
  throw UsageError("unknown output format '" + name + "'" + did_you_mean(name, names) + "; choose one of " + list);
}

Severity parse_severity_or_throw(const std::string& name) {
  if (auto s = parse_severity(name)) return *s;
  throw UsageError("--min-severity: unknown severity '" + name + "'" +
                   did_you_mean(name, {"note", "warning", "error"}) + "; choose one of note, warning, error");
}

bool use_color(const std::string& mode, bool to_stdout) {
  if (mode == "always") return true;
  if (mode == "never") return false;
  if (mode != "auto") throw UsageError("--color: expected auto, always or never, not '" + mode + "'");
  const char* no_color = std::getenv("NO_COLOR");
  return to_stdout && ::isatty(STDOUT_FILENO) && (no_color == nullptr || *no_color == '\0');
}

std::vector<engine::PathMapping> parse_path_maps(const std::vector<std::string>& maps) {
  std::vector<engine::PathMapping> out;
  for (const std::string& m : maps) {
    const auto eq = m.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == m.size())
      throw UsageError("--path-map: expected FROM=TO, got '" + m + "'");
    out.push_back({m.substr(0, eq), m.substr(eq + 1)});
  }
  return out;
}

// "checking 1100 files (2 s)" on stderr, only on a terminal and only for runs that are long (more than
// 200 files, or still running after a second). The line is erased when the run ends.
class ProgressLine {
 public:
  explicit ProgressLine(bool enabled) : enabled_(enabled) {
    if (enabled_) thread_ = std::jthread([this](std::stop_token stop) { loop(stop); });
  }
  ~ProgressLine() { finish(); }

  void update(std::size_t done, std::size_t total) {
    done_ = done;
    total_ = total;
  }

  void finish() {
    if (!thread_.joinable()) return;
    thread_.request_stop();
    wake_.notify_all();
    thread_.join();
    if (shown_) std::fputs("\r\033[K", stderr);
  }

 private:
  void loop(std::stop_token stop) {
    const auto start = std::chrono::steady_clock::now();
    static constexpr const char kSpin[] = "|/-\\";
    for (unsigned tick = 0; !stop.stop_requested(); ++tick) {
      {
        std::unique_lock lock(mutex_);
        wake_.wait_for(lock, stop, std::chrono::milliseconds(100), [] { return false; });
      }
      if (stop.stop_requested()) break;
      const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      const std::size_t total = total_;
      if (elapsed < 1.0 && total <= 200) continue;
      // Files are analysed together per project, so `done` moves in steps: show it only once it has.
      const std::size_t done = done_;
      if (done == 0)
        std::fprintf(stderr, "\r\033[Ksynclint: %c checking %zu files (%.0f s)", kSpin[tick % 4], total, elapsed);
      else
        std::fprintf(stderr, "\r\033[Ksynclint: %c checking %zu files, %zu done (%.0f s)", kSpin[tick % 4], total,
                     done, elapsed);
      std::fflush(stderr);
      shown_ = true;
    }
  }

  bool enabled_;
  std::atomic<std::size_t> done_{0};
  std::atomic<std::size_t> total_{0};
  std::mutex mutex_;
  std::condition_variable_any wake_;
  bool shown_ = false;
  std::jthread thread_;
};

int run(const CheckArgs& args) {
  const emit::Format format = parse_format_or_throw(args.format);
  const Severity threshold = parse_severity_or_throw(args.min_severity);
  const bool to_stdout = args.output.empty() || args.output == "-";

  engine::CheckOptions options;
  options.paths = args.paths;
  options.jobs = args.jobs;
  options.report_cold = args.all;
  if (!args.config.empty()) options.config_file = args.config;
  if (!args.costs.empty()) options.costs_file = args.costs;
  options.path_mappings = parse_path_maps(args.path_maps);
  if (!args.select.empty()) options.select = args.select;
  options.ignore = args.ignore;
  if (!args.build_path.empty()) options.cxx.build_path = args.build_path;
  options.cxx.fixed_args = args.fixed_args;
  options.cxx.extra_args = args.extra_args;
  options.cxx.extra_args_before = args.extra_args_before;
  if (!args.header_filter.empty()) options.cxx.header_filter = args.header_filter;
  options.cxx.quiet = args.quiet;

  emit::Options emit_options;
  emit_options.color = use_color(args.color, to_stdout);
  emit_options.statistics = args.statistics;
  emit_options.information_uri = emit::default_information_uri();
  emit_options.read_source = emit::read_source_from_disk(options.max_file_bytes);

  Report report;
  {
    ProgressLine progress(!args.no_progress && ::isatty(STDERR_FILENO));
    report = engine::run_check(options, [&](std::size_t done, std::size_t total) { progress.update(done, total); });
  }

  std::erase_if(report.findings, [&](const Finding& f) { return f.severity < threshold; });

  if (to_stdout) {
    emit::write(format, std::cout, report, Catalog::builtin(), emit_options);
    std::cout.flush();
    if (!std::cout) throw std::runtime_error("cannot write to standard output");
  } else {
    std::ostringstream buffer;
    emit::write(format, buffer, report, Catalog::builtin(), emit_options);
    write_output_file(args.output, buffer.str());
  }

  // The text report on stdout already shows input errors; otherwise say them on stderr too.
  bool fatal = false;
  for (const FileError& e : report.errors) {
    fatal = fatal || e.fatal;
    if (format != emit::Format::Text || !to_stdout) {
      std::cerr << "synclint: " << (shown_as_error(e) ? "error" : "warning") << ": " << e.path;
      if (e.position) std::cerr << ":" << e.position->line << ":" << e.position->column;
      std::cerr << ": " << e.message << "\n";
    }
  }
  if (fatal) return kExitError;
  if (!report.findings.empty() && !args.exit_zero) return kExitFindings;
  return kExitClean;
}

}  // namespace

void add_check_command(CLI::App& app, int& exit_code, std::optional<std::vector<std::string>> compile_flags) {
  auto args = std::make_shared<CheckArgs>();
  args->fixed_args = std::move(compile_flags);
  CLI::App* cmd = app.add_subcommand(
      "check", "Check Python and C++ (LibTorch) files for host-device synchronizations in hot code\n"
               "C++ flags come from compile_commands.json (-p BUILD_DIR, or found above each file or in its "
               "build/), or follow `--` for every file: synclint check train.cpp -- -std=c++17 -I...");
  cmd->add_option("paths", args->paths, "Files or folders to check (folders recursively; default: .)")
      ->type_name("PATH");
  cmd->add_option("--format", args->format, "Output format: text, json, sarif, github, junit")
      ->type_name("FORMAT")
      ->capture_default_str();
  cmd->add_option("-o,--output", args->output, "Write the report to FILE instead of stdout (a regular file is replaced atomically)")
      ->type_name("FILE");
  cmd->add_option("-j,--jobs", args->jobs, "Worker threads (default: all cores)")
      ->type_name("N")
      ->check(CLI::Range(0u, 1024u));
  cmd->add_option("--min-severity", args->min_severity,
                  "Hide findings below this severity (note, warning, error); hidden findings do not fail")
      ->type_name("SEVERITY")
      ->capture_default_str();
  cmd->add_flag("--exit-zero", args->exit_zero, "Exit 0 even when there are findings (errors still exit 2)");
  cmd->add_flag("--statistics", args->statistics, "Print a count per rule instead of the findings");
  cmd->add_flag("--all", args->all, "Also report synchronizations in cold code (runs once)");
  cmd->add_option("--config", args->config, "Use this configuration file for every path")
      ->type_name("FILE");
  cmd->add_option("--costs", args->costs, "Join a probe report (synclint probe -o REPORT.json): rank by cost")
      ->type_name("REPORT");
  cmd->add_option("--path-map", args->path_maps,
                  "FROM=TO: map a path prefix recorded in the probe report to one here (repeatable)")
      ->type_name("FROM=TO")
      ->allow_extra_args(false);
  cmd->add_option("--color", args->color, "Colour: auto (on a terminal, unless NO_COLOR is set), always, never")
      ->type_name("WHEN")
      ->capture_default_str();
  cmd->add_option("--select", args->select, "Only these rules (ids, prefixes or names; replaces configuration)")
      ->type_name("RULES")
      ->allow_extra_args(false)
      ->delimiter(',');
  cmd->add_option("--ignore", args->ignore, "Skip these rules (ids, prefixes or names; added to configuration)")
      ->type_name("RULES")
      ->allow_extra_args(false)
      ->delimiter(',');
  cmd->add_flag("--no-progress", args->no_progress, "Never show the progress line on stderr");
  cmd->add_option("-p,--build-path", args->build_path, "C++: the folder holding compile_commands.json")
      ->type_name("BUILD_DIR");
  cmd->add_option("--extra-arg", args->extra_args, "C++: add this flag to every compile command (repeatable)")
      ->type_name("FLAG")
      ->allow_extra_args(false);
  cmd->add_option("--extra-arg-before", args->extra_args_before,
                  "C++: put this flag first in every compile command (repeatable)")
      ->type_name("FLAG")
      ->allow_extra_args(false);
  cmd->add_option("--header-filter", args->header_filter,
                  "C++: also report in headers whose path matches this regular expression (default: headers "
                  "under the project root; never system headers)")
      ->type_name("REGEX");
  cmd->add_flag("--quiet", args->quiet, "C++: do not show compiler warnings");
  cmd->callback([args, &exit_code] {
    try {
      exit_code = run(*args);
    } catch (const UsageError& e) {
      std::cerr << "synclint: error: " << e.what() << "\n";
      exit_code = kExitError;
    } catch (const ConfigError& e) {
      std::cerr << "synclint: error: " << e.what() << "\n";
      exit_code = kExitError;
    }
  });
}

}  // namespace synclint::cli
