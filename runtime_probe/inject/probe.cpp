// libsynclint_probe.so: the CUPTI injection library the CUDA driver loads through CUDA_INJECTION64_PATH.
// InitializeInjection reads the settings (options.h), opens CUPTI, subscribes to the runtime and driver
// API callbacks the analysis needs, switches the GPU activity records on for the first traced stretch and
// starts the window and resolver threads. Every way a process ends writes the report once: exit (atexit),
// CUDA context teardown, SIGINT/SIGTERM (the window thread writes it; with the default action it then
// raises the signal again, with the program's own handler the program goes on to it); a forked child
// records nothing. Without CUPTI, or with CUPTI held by another
// client, the program runs unmeasured and the report says why.
#include <dlfcn.h>
#include <execinfo.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "output.h"
#include "probe_state.h"

extern char** environ;

namespace synclint::probe::inject {

// The last window and every output file, once (exit, context teardown, or a terminating signal).
void finish_once() {
  if (g == nullptr || g_forked.load() || g->finished.exchange(true)) return;
  if (g->rec != nullptr && g_recording.load()) {
    cut_window(true);
    g_recording.store(false);
  }
  if (g->native) g->native->stop_symbolizer();  // the last cut has symbolized every site
  write_outputs();
}

namespace {

void on_exit_handler() {
  if (g == nullptr || g_forked.load()) return;
  if (g->resolver.joinable()) {  // the final cut resolves what is left
    {
      std::lock_guard lock(g->resolver_mu);
      g->resolver_quit = true;
    }
    g->resolver_cv.notify_one();
    g->resolver.join();
  }
  if (g->watcher.joinable()) {
    wake_watcher('Q');
    g->watcher.join();
  }
  finish_once();
}

void on_signal(int sig, siginfo_t* info, void* uctx) {
  if (g == nullptr) return;
  const struct sigaction& old = sig == SIGINT ? g->old_int : g->old_term;
  const bool with_info = (old.sa_flags & SA_SIGINFO) != 0;
  if (!with_info && old.sa_handler == SIG_IGN) return;
  if (with_info ? old.sa_sigaction != nullptr : old.sa_handler != SIG_DFL) {
    // The program's own handler (Python's KeyboardInterrupt, a C++ stop flag) decides what happens, and a
    // program that ends because of it often does so past this handler: Python unwinds, puts the default
    // action back and raises the signal again. So the report is written now, covering the run up to the
    // signal, by the window thread; the handler runs at once, on this thread, as without the probe.
    int none = 0;
    if (!g_forked.load() && !g->finished.load() &&
        g->pending_signal.compare_exchange_strong(none, sig | Probe::kProgramHandlesSignal))
      wake_watcher('S');
    if (with_info) old.sa_sigaction(sig, info, uctx);
    else old.sa_handler(sig);
    return;
  }
  // Default action (terminate): the window thread writes the report, then re-raises with the default.
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  const std::uint64_t now_ns = static_cast<std::uint64_t>(now.tv_sec) * 1'000'000'000u + static_cast<std::uint64_t>(now.tv_nsec);
  int first = 0;
  const bool can_write = !g_forked.load() && !g->finished.load();
  if (can_write && g->pending_signal.compare_exchange_strong(first, sig)) {
    g->pending_signal_ns.store(now_ns);
    wake_watcher('S');
    return;
  }
  if (!can_write) first = g->pending_signal.load();  // the report may be being written for it
  // The same signal again within a second is the first one delivered twice (sent to the process group,
  // and forwarded by a launcher such as `synclint probe` or a scheduler's): the report is being written and
  // the first one ends the process. Another signal, or a later one, ends it at once.
  const std::uint64_t first_ns = g->pending_signal_ns.load();  // 0: the first one's handler is still running
  if (first == sig && !g_forked.load() && (first_ns == 0 || now_ns - first_ns < 1'000'000'000u)) return;
  sigaction(sig, &old, nullptr);
  raise(sig);
}

void install_signal_handlers() {
  struct sigaction sa {};
  sa.sa_sigaction = on_signal;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, &g->old_int);
  sigaction(SIGTERM, &sa, &g->old_term);
}

// SYNCLINT_PROBE_DEBUG: a fault prints the faulting thread's stack (module+offset; addr2line or gdb turn
// those into lines) before the default action, since a crash leaves no report to tell where it happened.
struct sigaction g_old_fault[3];
constexpr int kFaultSignals[3] = {SIGSEGV, SIGBUS, SIGILL};

void on_fault(int sig, siginfo_t* info, void*) {
  char head[160];
  int n = std::snprintf(head, sizeof head, "synclint probe: signal %d at address %p in thread %ld; stack:\n", sig,
                        info != nullptr ? info->si_addr : nullptr, static_cast<long>(gettid()));
  if (n > 0) (void)!write(2, head, static_cast<std::size_t>(std::min<int>(n, sizeof head - 1)));
  void* frames[64];
  backtrace_symbols_fd(frames, backtrace(frames, 64), 2);
  for (int i = 0; i < 3; ++i)
    if (kFaultSignals[i] == sig) sigaction(sig, &g_old_fault[i], nullptr);
  raise(sig);  // pending until the handler returns, then the program's own handling (default: core dump)
}

void install_fault_handlers() {
  void* warm[1];
  backtrace(warm, 1);  // loads libgcc's unwinder now, not inside the handler
  struct sigaction sa {};
  sa.sa_sigaction = on_fault;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  for (int i = 0; i < 3; ++i) sigaction(kFaultSignals[i], &sa, &g_old_fault[i]);
}

void on_fork_child() {
  // The child has no window thread and cannot use CUDA (it was initialized in the parent): it records
  // nothing and writes nothing. A worker started with spawn loads the probe afresh and reports itself.
  g_forked.store(true);
  g_recording.store(false);
}

// A report that says why there is no data, written at once so it exists however the process ends.
void unavailable(const std::string& why) {
  g->status = "cupti-unavailable: " + why;
  report_error(g->status + "; the program runs unmeasured");
  write_outputs();
}

// Switches the probe to what the settings ask; returns where the GPU records are on. A trace or a
// recorded stream needs every event.
GpuRecords apply_options(Probe& p, RecorderOptions& opt) {
  const Options& o = p.options;
  opt.window_ns = o.window_ms * 1'000'000;
  opt.window_calls = o.window_calls;
  if (o.record) opt.record_max_calls = o.record_max;
  p.sample = o.sample;
  p.sample_on = std::chrono::milliseconds(o.sample_ms);
  p.sample_first = std::chrono::milliseconds(o.first_stretch_ms());
  if (o.trace || opt.record_max_calls > 0) p.sample = 1;
  GpuRecords gpu_records = o.gpu_records;
  // Everything traced (--trace, SYNCLINT_PROBE_SAMPLE=1, a recorded stream): the first stretch never ends,
  // so its records stay on and there is nothing to model, unless `model` was asked for.
  if (p.sample >= 1 && gpu_records == GpuRecords::First) gpu_records = GpuRecords::All;
  if (gpu_records == GpuRecords::First || gpu_records == GpuRecords::Model) p.gpu_model = opt.model_gpu = true;
  if (gpu_records == GpuRecords::Model) p.records_live = false;  // every traced call is modelled, from the start
  p.run.gpu_records = gpu_records_name(gpu_records);
  p.first_max = std::chrono::milliseconds(o.first_max_ms);
  // The probe's time around each call it records, taken out of the replayed host gaps.
  opt.callback_overhead_ns = o.callback_ns;
  p.run.callback_overhead_ns = opt.callback_overhead_ns;
  p.record_launch_keys = opt.record_max_calls > 0;
  // With the GPU model, the program's own thread switches the stretches' launch callbacks.
  p.switch_at_sync = p.gpu_model;
  return gpu_records;
}

void open_trace(Probe& p) {
  auto path = output_file(p.options.dir, "trace", p.run.pid, p.run.rank);
  std::error_code ec;
  std::filesystem::create_directories(path.parent_path(), ec);
  p.trace_out.open(path, std::ios::binary | std::ios::trunc);
  p.trace_path = path;
  if (p.trace_out) {
    std::string name = p.run.command.empty() ? "process" : p.run.command.front();
    p.trace = std::make_unique<TraceWriter>(p.trace_out, p.run.pid, name);
  } else {
    report_error("cannot write " + path.string());
  }
}

int initialize() {
  const auto init_began = std::chrono::steady_clock::now();  // now_ns() reads CUPTI's clock, not loaded yet
  const double cpu_before = cpu_ms(RUSAGE_SELF);
  g = new Probe;
  Probe& p = *g;
  ParsedOptions parsed = parse_options(environ);
  for (const std::string& warning : parsed.warnings) std::fprintf(stderr, "synclint-probe: %s\n", warning.c_str());
  p.options = std::move(parsed.options);
  const Options& o = p.options;
  p.debug = o.debug;
  p.cpu_before_ms = cpu_before;
  p.init_thread_clock_ok = pthread_getcpuclockid(pthread_self(), &p.init_thread_clock) == 0;
  p.run = collect_run_info();
  std::string error;
  if (!load_cupti(p.cupti, o.cupti_path, error)) {
    unavailable(error);
    std::atexit(on_exit_handler);
    return 1;
  }
  RecorderOptions opt;
  const GpuRecords gpu_records = apply_options(p, opt);
  p.rec = std::make_unique<Recorder>(opt);
  p.filters = make_site_filters(o.skip.empty() ? nullptr : o.skip.c_str());
  p.python = std::make_unique<PythonSites>(p.filters.python_files, p.rec->sites());
  if (o.python_calls) p.python->time_calls(now_ns, on_python_call);
  p.native = std::make_unique<NativeSites>(p.filters, p.rec->sites(), o.symbolizer);
  p.traced = true;

  CUptiResult r = p.cupti.subscribe(&p.subscriber, on_callback, nullptr);
  if (r != CUPTI_SUCCESS) {
    std::string why = "cuptiSubscribe failed: " + p.cupti.describe(r);
    if (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED)
      why += " (another CUPTI client holds it: torch.profiler, nsys, ncu or compute-sanitizer)";
    p.rec.reset();
    unavailable(why);
    std::atexit(on_exit_handler);
    return 1;
  }
  build_tables(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_SIZE, p.runtime, false);
  if (o.driver != DriverCalls::None)
    build_tables(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_SIZE, p.driver, o.driver == DriverCalls::All);
  std::string partial = attach_activity();
  const bool with_records = gpu_records != GpuRecords::None && gpu_records != GpuRecords::Model;
  if (partial.empty() && with_records) partial = enable_record_kinds();
  p.activity_ok = partial.empty() && with_records;  // without records, stretches do not switch them on either
  if (!partial.empty()) {
    p.status = "partial: no GPU activity records (" + partial + ")";
    report_error(p.status);
  }

  if (void* cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD); cuda != nullptr) {
    p.pointer_attribute = reinterpret_cast<Probe::PointerAttr>(dlsym(cuda, "cuPointerGetAttribute"));
    p.device_name = reinterpret_cast<Probe::DeviceName>(dlsym(cuda, "cuDeviceGetName"));
  }
  if (o.trace) open_trace(p);
  write_started_report();

  p.start_ns = now_ns();
  p.rec->set_run_start(p.start_ns);
  if (pipe2(p.wake, O_CLOEXEC | O_NONBLOCK) == 0) {
    p.rec->set_on_full([] { wake_watcher('F'); });
    p.watcher = std::thread(watcher_main);
  }
  p.resolver = std::thread(resolver_main);
  g_recording.store(true);
  std::atexit(on_exit_handler);
  pthread_atfork(nullptr, nullptr, on_fork_child);
  install_signal_handlers();
  if (p.debug) {
    install_fault_handlers();
    p.startup_cpu_ms = cpu_ms(RUSAGE_SELF) - cpu_before;
    p.startup_wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - init_began).count();
  }
  return 1;
}

}  // namespace
}  // namespace synclint::probe::inject

extern "C" __attribute__((visibility("default"))) int InitializeInjection(void) {
  static std::atomic<bool> done{false};
  if (done.exchange(true)) return 1;
  try {
    return synclint::probe::inject::initialize();
  } catch (const std::exception& ex) {
    std::fprintf(stderr, "synclint probe: disabled: %s\n", ex.what());
  } catch (...) {
    std::fprintf(stderr, "synclint probe: disabled\n");
  }
  return 1;
}
