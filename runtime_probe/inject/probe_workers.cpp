// The probe's own threads. The window thread cuts a window every SYNCLINT_PROBE_WINDOW_MS (or when a
// thread's buffer is full: the recorder hands it to the analysis), and with sampling switches tracing on
// for a traced stretch, then off for the rest of each period; it also loads the torch_ops shim. The
// resolver thread symbolizes new native sites as they are captured.
#include <dlfcn.h>
#include <link.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>

#include "probe_state.h"

namespace synclint::probe::inject {
namespace {

void fill_gpu_name(const EventStream& w) {
  Probe& p = *g;
  if (!p.run.gpu_name.empty() || p.device_name == nullptr || w.gpu.empty()) return;
  char name[256] = {};
  if (p.device_name(name, sizeof name - 1, static_cast<CUdevice>(w.gpu.front().device)) == CUDA_SUCCESS)
    p.run.gpu_name = name;
}

// New native sites, symbolized as soon as they are captured (capture_site wakes the resolver thread): a
// module's first batch starts its symbolizer and loads its debug information (0.1 s for the C++
// benchmark), which then falls in the program's start-up, where its first syncs are, rather than in the
// steps during which the next cut comes.
void resolve_new_sites() {
  Probe& p = *g;
  const std::uint64_t began = now_ns();
  p.native->resolve();
  if (p.debug) {
    const std::uint64_t done = now_ns();
    p.symbolizing.add(began, done);
    std::fprintf(stderr, "synclint probe: symbolizing new sites of %.1f ms ending at %.1f ms\n",
                 static_cast<double>(done - began) / 1e6, ms_since_start(done));
  }
}

// Milliseconds from now until `deadline` (steady clock), at least 1.
int ms_until(std::chrono::steady_clock::time_point deadline) {
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
  return static_cast<int>(std::clamp<long long>(ms, 1, 1 << 30));
}

// With SYNCLINT_PROBE_TORCH_OPS: loads the shim into a C++ LibTorch program, on the window thread (LibTorch
// takes its callback lock; not inside the CUDA call that started the probe). In a Python program the Python
// call around each read is timed already; in a program without LibTorch there is nothing to hook.
bool libtorch_loaded() {
  return dl_iterate_phdr([](dl_phdr_info* info, std::size_t, void*) {
           return info->dlpi_name != nullptr && std::strstr(info->dlpi_name, "libtorch_cpu.so") != nullptr ? 1 : 0;
         }, nullptr) != 0;
}

void load_torch_ops() {
  Probe& p = *g;
  const std::string& path = p.options.torch_ops;
  if (path.empty()) return;
  const std::string what = "SYNCLINT_PROBE_TORCH_OPS=" + path + ": ";
  using IsInitialized = int (*)();
  if (auto py = reinterpret_cast<IsInitialized>(dlsym(RTLD_DEFAULT, "Py_IsInitialized")); py != nullptr && py() != 0) {
    if (p.debug) report_error(what + "not loaded in a Python program (its Python calls are timed)");
    return;
  }
  if (!libtorch_loaded()) {
    report_error(what + "not loaded: the program has no LibTorch (libtorch_cpu.so)");
    return;
  }
  void* shim = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (shim == nullptr) {
    const char* why = dlerror();
    report_error(what + "cannot open it: " + (why != nullptr ? why : "?"));
    return;
  }
  using Start = int (*)(std::uint64_t (*)(), void (*)(std::uint64_t, std::uint64_t));
  auto start = reinterpret_cast<Start>(dlsym(shim, "synclint_torch_ops_start"));
  auto enable = reinterpret_cast<void (*)(int)>(dlsym(shim, "synclint_torch_ops_enable"));
  if (start == nullptr || enable == nullptr) {
    report_error(what + "not a synclint torch_ops shim");
    return;
  }
  if (start(now_ns, on_torch_read) != 1) {
    report_error(what + "LibTorch refused its RecordFunction hook");
    return;
  }
  std::lock_guard lock(p.cupti_mu);  // set_traced switches it from now on
  p.torch_ops_enable = enable;
  enable(p.traced.load() ? 1 : 0);
}

}  // namespace

void want_resolve() {
  Probe& p = *g;
  {
    std::lock_guard lock(p.resolver_mu);
    p.resolver_wanted = true;
  }
  p.resolver_cv.notify_one();
}

// Flushes the activity buffers and hands everything up to a safe cut (all of it when final) to the
// accumulator. Called by the window thread and, at the end, by the exit path.
// Mid-run, the default flush only (see SampleSchedule): a forced one is for the end of the session.
void cut_window(bool final) {
  Probe& p = *g;
  std::lock_guard lock(p.window_mu);
  {
    std::lock_guard cupti(p.cupti_mu);
    p.cupti.activity_flush_all(final ? CUPTI_ACTIVITY_FLAG_FLUSH_FORCED : 0);
  }
  const std::uint64_t began = now_ns();
  std::uint64_t cut = final ? UINT64_MAX : p.rec->safe_cut(began);
  EventStream w = p.rec->take_window(cut, final);
  const std::uint64_t symbolize = now_ns();
  p.native->resolve();  // placeholders of this window get their file:line before the analysis
  const std::uint64_t symbolized = now_ns();
  if (p.debug) p.symbolizing.add(symbolize, symbolized);
  if (!final) p.native->stop_idle_symbolizer(std::chrono::steady_clock::now());
  w.sites = p.rec->sites().snapshot();
  fill_gpu_name(w);
  if (p.trace) p.trace->add(w);
  p.rec->consume(std::move(w));
  if (p.debug) {
    const std::uint64_t done = now_ns();
    p.cuts.add(began, done);
    std::fprintf(stderr, "synclint probe: window cut of %.1f ms (symbolizing %.1f ms) ending at %.1f ms\n",
                 static_cast<double>(done - began) / 1e6, static_cast<double>(symbolized - symbolize) / 1e6,
                 ms_since_start(done));
  }
}

void watcher_main() {
  using clock = std::chrono::steady_clock;
  Probe& p = *g;
  load_torch_ops();
  const auto window = std::chrono::milliseconds(p.rec->options().window_ns / 1'000'000);
  auto next_cut = clock::now() + window;
  const auto started = clock::now();
  SampleSchedule schedule(p.sample, p.sample_on, started, p.sample_first);
  constexpr std::chrono::milliseconds kFirstExtension{100};
  bool first_extended = false;
  for (;;) {
    if (p.debug) p.window_cpu_ns.store(clock_ns(CLOCK_THREAD_CPUTIME_ID).value_or(0), std::memory_order_relaxed);
    pollfd pfd{p.wake[0], POLLIN, 0};
    int r = poll(&pfd, 1, ms_until(std::min({next_cut, schedule.next_change(), schedule.flush_due()})));
    char c = 'T';
    if (r > 0 && read(p.wake[0], &c, 1) != 1) c = 'T';
    if (r < 0) continue;
    if (c == 'Q') return;
    if (c == 'S') {
      const int pending = p.pending_signal.load();
      finish_once();
      if ((pending & Probe::kProgramHandlesSignal) != 0) continue;  // the program's handler has the signal
      sigaction(pending, pending == SIGINT ? &p.old_int : &p.old_term, nullptr);
      kill(getpid(), pending);
      return;
    }
    const auto now = clock::now();
    if (p.finished.load()) {  // the report is written: wait for 'Q' without cutting or toggling
      next_cut = now + window;
      schedule.stop();
      continue;
    }
    const double at_ms = std::chrono::duration<double, std::milli>(now - started).count();
    // SYNCLINT_PROBE_GPU_RECORDS=first: the first stretch, the only one with GPU records, goes on while the
    // program keeps queuing work it has not queued before (up to SYNCLINT_PROBE_FIRST_MAX_MS).
    if (p.gpu_model && p.records_live.load() && schedule.traced() && now >= schedule.next_change() &&
        !p.settling.settled() && now - started < p.first_max) {
      if (p.debug && !first_extended)
        std::fprintf(stderr, "synclint probe: first stretch extended at %.1f ms: %llu kinds of GPU work so far, the last new one %llu calls ago\n",
                     at_ms, static_cast<unsigned long long>(p.settling.keys()),
                     static_cast<unsigned long long>(p.settling.since_new()));
      first_extended = true;
      schedule.extend(now + kFirstExtension);
    }
    if (std::optional<bool> on = schedule.update(now, c == 'N')) {
      // A stretch's records are flushed before the next stretch begins (SampleSchedule keeps them apart).
      if (*on && schedule.take_flush(clock::time_point::max())) cut_window(false);
      // Each call carries whether it was recorded while traced, so the cut can be anywhere.
      set_traced(*on);
      if (p.debug)  // a crash leaves no report: the switches before it are on stderr
        std::fprintf(stderr, "synclint probe: tracing %s at %.1f ms%s\n", *on ? "on" : "off", at_ms,
                     c == 'N' ? " (request)" : "");
    }
    // The records of a stretch that ended kFlushDelay ago sit in a buffer that is not full; now that the
    // kernels launched in the stretch have had time to finish, the default flush delivers it.
    const bool flush = schedule.take_flush(now);
    if (flush && p.debug) std::fprintf(stderr, "synclint probe: flush of the stretch at %.1f ms\n", at_ms);
    if (c == 'F' || flush || now >= next_cut) {
      cut_window(false);
      next_cut = now + window;
    }
  }
}

void resolver_main() {
  Probe& p = *g;
  for (;;) {
    std::unique_lock lock(p.resolver_mu);
    p.resolver_cv.wait(lock, [&p] { return p.resolver_wanted || p.resolver_quit; });
    if (p.resolver_quit) return;
    p.resolver_wanted = false;
    lock.unlock();
    if (!p.finished.load()) resolve_new_sites();
  }
}

}  // namespace synclint::probe::inject
