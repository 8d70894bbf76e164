// The injection library's state, shared by its parts: the CUPTI callbacks (probe_callbacks.cpp), the
// activity records (probe_activity.cpp), the switching of traced stretches (probe_tracing.cpp), the window
// and resolver threads (probe_workers.cpp), the output files (probe_outputs.cpp) and the lifecycle
// (probe.cpp: InitializeInjection, exit, signals, fork, faults). One Probe per process, made at
// InitializeInjection and never freed (callbacks may come until the process ends).
#pragma once

#include <cupti.h>
#include <cuda.h>
#include <signal.h>
#include <time.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "analysis/trace.h"
#include "classify.h"
#include "cupti_loader.h"
#include "native_site.h"
#include "options.h"
#include "python_site.h"
#include "recorder.h"
#include "sampling.h"
#include "site_filter.h"

namespace synclint::probe::inject {

// A callback id's entry in the runtime or driver table.
struct Entry {
  bool on = false;
  bool windowed = false;  // enabled only in traced stretches (launches, memsets, other non-blocking calls)
  ApiClass cls;
  std::uint32_t api = 0;
};

struct Probe {
  Options options;
  CuptiApi cupti;
  SiteFilters filters;
  std::unique_ptr<Recorder> rec;
  std::unique_ptr<PythonSites> python;
  std::unique_ptr<NativeSites> native;
  CUpti_SubscriberHandle subscriber = nullptr;
  std::vector<Entry> runtime, driver;
  RunInfo run;
  std::string status = "ok";
  bool debug = false;
  double sample = 1;         // the fraction traced (1 with a trace or a recorded stream)
  std::atomic<bool> traced{true};  // the current sampling window is traced
  std::chrono::milliseconds sample_on{1000};  // each traced stretch
  std::chrono::milliseconds sample_first{1000};  // the first one
  bool activity_ok = false;  // the GPU record kinds are on in traced stretches
  bool gpu_model = false;  // GpuRecords::First or Model: the GPU work of stretches without records is modelled
  std::atomic<bool> records_live{true};  // with gpu_model: the first stretch's records are on (never with `model`)
  bool record_launch_keys = false;  // a recorded stream carries the launch keys
  KeySettling settling;  // with gpu_model and records_live: the first stretch lasts until the launches show no new key
  std::chrono::milliseconds first_max{20000};  // but no longer than this
  // With the GPU model, a stretch's start or end waits up to 100 ms for the program's next sync-path call
  // to switch the launch callbacks (switch_pending: -1 nothing, 0 off, 1 on), and an end is also taken by
  // the EXIT of the program's next outermost runtime launch (where none of its callbacks is left to come);
  // how often a sync, a launch and the window thread did it.
  bool switch_at_sync = false;
  std::atomic<int> switch_pending{-1};
  std::mutex switch_mu;
  std::condition_variable switch_cv;
  bool switch_done = false;
  std::atomic<std::uint64_t> switched_by_sync{0}, switched_by_window{0}, switched_by_sync_ns{0};
  std::atomic<std::uint64_t> switched_by_launch{0};
  // A stretch's end that the program's thread switches also switches the GPU record kinds off there
  // (records_off_pending: set_traced asks it); how often it did.
  std::atomic<bool> records_off_pending{false};
  std::atomic<std::uint64_t> records_off_by_program{0};

  using PointerAttr = CUresult (*)(void*, CUpointer_attribute, CUdeviceptr);
  PointerAttr pointer_attribute = nullptr;
  using DeviceName = CUresult (*)(char*, int, CUdevice);
  DeviceName device_name = nullptr;

  std::mutex name_mu;
  std::unordered_map<const char*, std::uint32_t> kernel_names;  // CUPTI's name pointer -> interned

  std::mutex window_mu;  // one window cut at a time
  std::mutex cupti_mu;  // CUPTI's switches and flushes, one thread at a time
  // The torch_ops shim's switch, set once it is loaded (by the window thread).
  void (*torch_ops_enable)(int) = nullptr;
  std::ofstream trace_out;
  std::filesystem::path trace_path;
  std::unique_ptr<TraceWriter> trace;
  std::thread watcher;
  int wake[2] = {-1, -1};
  // The resolver thread symbolizes new native sites as they are captured (resolve_new_sites), apart from
  // the window thread, whose stretch switches a long first load of a module's debug information would delay.
  std::thread resolver;
  std::mutex resolver_mu;
  std::condition_variable resolver_cv;
  bool resolver_wanted = false, resolver_quit = false;
  std::atomic<bool> python_seen{false};
  std::atomic<bool> finished{false};
  // The signal whose report the window thread writes: SIGINT or SIGTERM, ended by the window thread with the
  // default action; with kProgramHandlesSignal set, the program's own handler has it and the process goes on.
  std::atomic<int> pending_signal{0};
  static constexpr int kProgramHandlesSignal = 0x10000;
  std::atomic<std::uint64_t> pending_signal_ns{0};  // when it came (CLOCK_MONOTONIC)
  std::atomic<std::uint64_t> site_ns{0}, site_count{0}, gpu_records{0}, exit_ns{0}, exit_count{0};
  std::atomic<std::uint64_t> queued_count{0}, queued_lag_ns{0};  // kernels with a queued timestamp (debug)
  std::atomic<std::uint64_t> descheduled_calls{0}, descheduled_ns{0};  // debug: blocking calls that waited for a CPU
  // Debug: where in the run the probe's occasional long tasks fall (their count, total time, and when the
  // last one ended): site captures over 100 us on the program's thread (a full unwind), and the window
  // cuts on the window thread (symbolizing the new sites, then the analysis).
  struct Tally {
    std::atomic<std::uint64_t> count{0}, ns{0}, last_end{0};
    void add(std::uint64_t start, std::uint64_t end) {
      count.fetch_add(1, std::memory_order_relaxed);
      ns.fetch_add(end > start ? end - start : 0, std::memory_order_relaxed);
      last_end.store(end, std::memory_order_relaxed);
    }
  } slow_captures, cuts, symbolizing;
  // The always-on (sync-path) callbacks (debug): ENTERs delivered and calls recorded, the last of each (ns).
  // A thread whose callbacks stopped shows its last ENTER long before the run's end.
  std::atomic<std::uint64_t> sync_path_enters{0}, sync_path_recorded{0}, last_sync_path_enter{0},
      last_sync_path_recorded{0};
  std::uint64_t start_ns = 0;
  // Debug: where the probed process's CPU time goes (the probe's start-up, its window thread, the rest).
  double cpu_before_ms = 0, startup_cpu_ms = 0, startup_wall_ms = 0;
  clockid_t init_thread_clock{};  // the CPU clock of the thread that initialized CUDA (the program's, mostly)
  bool init_thread_clock_ok = false;
  std::atomic<std::uint64_t> window_cpu_ns{0};
  struct sigaction old_int {}, old_term {};

  SiteRequests requests;  // sampling: recurring sites not traced yet ask for a traced stretch
};

extern Probe* g;
extern std::atomic<bool> g_recording;
extern std::atomic<bool> g_forked;
// Bumped whenever the sampling switches callbacks on or off: a runtime call in flight then may miss its
// EXIT (or its ENTER), so a thread's nesting depth from before the switch is not trusted.
extern std::atomic<std::uint32_t> g_epoch;

// ---- probe_state.cpp: small helpers ----
std::uint64_t now_ns();  // CUPTI's clock
// CPU time (user + system) of the whole process (RUSAGE_SELF) or of its reaped children (RUSAGE_CHILDREN).
double cpu_ms(int who);
// A clock's time in ns (a thread's CPU clock), or nothing when it cannot be read (its thread has ended).
std::optional<std::uint64_t> clock_ns(clockid_t clock);
// A time on the probe's clock in ms since the probe started (the debug lines' times).
double ms_since_start(std::uint64_t ns);
void wake_watcher(char c);
void report_error(const std::string& what);  // "synclint probe: what" on stderr

// ---- probe_callbacks.cpp ----
void CUPTIAPI on_callback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data);
void on_python_call(std::uint64_t start, std::uint64_t end, std::int32_t site);
void on_torch_read(std::uint64_t start, std::uint64_t end);
void build_tables(CUpti_CallbackDomain domain, std::uint32_t size, std::vector<Entry>& table, bool all_driver);

// ---- probe_activity.cpp ----
std::string attach_activity();  // the context teardown callback and the activity buffers; an error or ""
std::string enable_record_kinds();  // the GPU record kinds on at the start; an error or ""
void switch_record_kinds(Probe& p, bool on);

// ---- probe_tracing.cpp ----
void switch_callbacks(bool windowed, bool on);
void switch_at_sync(Probe& p, bool at_launch = false);
void set_traced(bool on);

// ---- probe_workers.cpp ----
void cut_window(bool final);
void want_resolve();
void watcher_main();
void resolver_main();

// ---- probe_outputs.cpp ----
void write_started_report();  // a report marked partial, replaced by the final one when the process ends
void write_outputs();

// ---- probe.cpp ----
void finish_once();

}  // namespace synclint::probe::inject
