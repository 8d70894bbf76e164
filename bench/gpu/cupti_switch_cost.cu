// Host cost of CUDA runtime calls before, while and after a CUPTI subscriber's launch callbacks are on:
// whether switching them on and off, as the probe's traced stretches do, leaves a cost behind
// (docs/probe.md, "The GPU model's new fit on the H200, and what the first stretch's launch callbacks
// cost": the second and third repetitions of a C++ process cost more after its first stretch).
//
//   cupti_switch_cost SCENARIO [--launches N] [--reps R]
//
// Every scenario measures four phases in one process: `before`, `during`, `after` (right after the
// switch-off) and `later` (500 ms on). Each phase times N calls of each kind, R times, and prints the
// median ns a call of an empty kernel's launch (cudaLaunchKernel), cudaGetDevice and cudaEventRecord,
// with the number of callbacks CUPTI made in the phase. Scenarios:
//   none             no CUPTI at all (the phases' drift)
//   sync             a subscriber with the probe's sync-path callbacks only, never a launch callback
//   toggle           sync, plus the probe's launch-class callbacks of both domains on for `during` and
//                    off after it (cuptiEnableCallback per callback id, as the probe switches a stretch)
//   toggle-runtime   the same, runtime-domain launch callbacks only
//   toggle-driver    the same, driver-domain launch callbacks only
//   toggle-thread    as toggle, switched off by another thread while this one launches (the probe's
//                    window thread ends a stretch so when no sync comes within 100 ms)
//   resubscribe      as toggle, but switched off by unsubscribing and subscribing again with the
//                    sync-path callbacks only
//   keep             the launch callbacks switched on for `during` and never off (they return at once)
//   timeline         no switching by this program: one repetition timed every 250 ms for 3 s, each line
//                    with its time since CUDA's start, for a run under CUDA_INJECTION64_PATH (the probe's
//                    first stretch ends 1 s after its start)
// Output: tab-separated lines `scenario phase t_ms launch_ns get_device_ns event_record_ns callbacks`.
#include <cuda_runtime.h>
#include <cupti.h>

#include "classify.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

__global__ void empty_kernel() {}

std::atomic<unsigned long long> g_callbacks{0};

void CUPTIAPI on_callback(void*, CUpti_CallbackDomain, CUpti_CallbackId, const void*) {
  g_callbacks.fetch_add(1, std::memory_order_relaxed);
}

void check_cuda(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "cupti_switch_cost: %s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

void check_cupti(CUptiResult r, const char* what) {
  if (r != CUPTI_SUCCESS) {
    const char* msg = nullptr;
    cuptiGetResultString(r, &msg);
    std::fprintf(stderr, "cupti_switch_cost: %s: %s\n", what, msg != nullptr ? msg : "unknown CUPTI error");
    std::exit(1);
  }
}

using synclint::probe::HostCallKind;
using synclint::probe::inject::ApiDomain;

// The probe's own split (runtime_probe/inject: classify_api, and build_tables in probe.cpp): the calls on
// the sync path (blocking calls, async copies) are always on; the rest it records only in traced stretches.
// With `sync_path`, the callback ids of the domain's always-on calls, else of its traced-only ones.
std::vector<CUpti_CallbackId> callback_ids(CUpti_CallbackDomain domain, std::uint32_t size, bool sync_path) {
  std::vector<CUpti_CallbackId> ids;
  const ApiDomain api_domain = domain == CUPTI_CB_DOMAIN_RUNTIME_API ? ApiDomain::Runtime : ApiDomain::Driver;
  for (std::uint32_t cbid = 1; cbid < size; ++cbid) {
    const char* name = nullptr;
    if (cuptiGetCallbackName(domain, cbid, &name) != CUPTI_SUCCESS || name == nullptr) continue;
    const auto cls = synclint::probe::inject::classify_api(api_domain, synclint::probe::inject::normalize_api_name(name));
    if (!cls) continue;
    if ((cls->blocking || cls->kind == HostCallKind::AsyncCopy || cls->check_pageable) == sync_path) ids.push_back(cbid);
  }
  return ids;
}

struct Subscriber {
  CUpti_SubscriberHandle handle{};
  std::vector<CUpti_CallbackId> sync_ids, runtime_launch_ids, driver_launch_ids;

  void subscribe() {
    check_cupti(cuptiSubscribe(&handle, reinterpret_cast<CUpti_CallbackFunc>(on_callback), nullptr), "cuptiSubscribe");
    for (auto id : sync_ids) check_cupti(cuptiEnableCallback(1, handle, CUPTI_CB_DOMAIN_RUNTIME_API, id), "enable sync");
  }
  void launches(int on, bool runtime, bool driver) {
    if (runtime)
      for (auto id : runtime_launch_ids)
        check_cupti(cuptiEnableCallback(on, handle, CUPTI_CB_DOMAIN_RUNTIME_API, id), "switch runtime launches");
    if (driver)
      for (auto id : driver_launch_ids)
        check_cupti(cuptiEnableCallback(on, handle, CUPTI_CB_DOMAIN_DRIVER_API, id), "switch driver launches");
  }
};

struct Costs {
  double launch_ns, get_device_ns, event_record_ns;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

// Times each call alone (the stream is drained every 256 calls, untimed, so the launch queue never fills).
template <class Call>
double ns_per_call(int n, cudaStream_t s, Call call) {
  using clock = std::chrono::steady_clock;
  std::chrono::nanoseconds total{0};
  for (int i = 0; i < n; ++i) {
    if (i % 256 == 0) check_cuda(cudaStreamSynchronize(s), "cudaStreamSynchronize");
    const auto t0 = clock::now();
    call();
    total += clock::now() - t0;
  }
  check_cuda(cudaStreamSynchronize(s), "cudaStreamSynchronize");
  return static_cast<double>(total.count()) / n;
}

Costs measure(int n, int reps, cudaStream_t s, cudaEvent_t e) {
  std::vector<double> launch, get_device, record;
  int device = 0;
  for (int r = 0; r < reps; ++r) {
    launch.push_back(ns_per_call(n, s, [&] { empty_kernel<<<1, 32, 0, s>>>(); }));
    get_device.push_back(ns_per_call(n, s, [&] { cudaGetDevice(&device); }));
    record.push_back(ns_per_call(n, s, [&] { cudaEventRecord(e, s); }));
  }
  check_cuda(cudaGetLastError(), "launch");
  return {median(launch), median(get_device), median(record)};
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: cupti_switch_cost SCENARIO [--launches N] [--reps R]\n");
    return 2;
  }
  const std::string scenario = argv[1];
  int n = 20000, reps = 3;
  for (int i = 2; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--launches") == 0) n = std::max(256, std::atoi(argv[i + 1]));
    else if (std::strcmp(argv[i], "--reps") == 0) reps = std::max(1, std::atoi(argv[i + 1]));
  }
  static const char* const kScenarios[] = {"none", "sync", "toggle", "toggle-runtime", "toggle-driver",
                                           "toggle-thread", "resubscribe", "keep", "timeline"};
  if (std::none_of(std::begin(kScenarios), std::end(kScenarios), [&](const char* s) { return scenario == s; })) {
    std::fprintf(stderr, "cupti_switch_cost: unknown scenario '%s'\n", scenario.c_str());
    return 2;
  }
  const auto start = std::chrono::steady_clock::now();
  check_cuda(cudaFree(nullptr), "CUDA start-up");
  cudaStream_t s;
  cudaEvent_t e;
  check_cuda(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreate");
  check_cuda(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "cudaEventCreate");
  measure(2000, 1, s, e);  // module load, first launches

  auto ms = [&] { return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count(); };
  auto print = [&](const char* phase, double t, const Costs& c, unsigned long long callbacks) {
    std::printf("%s\t%s\t%.1f\t%.1f\t%.1f\t%.1f\t%llu\n", scenario.c_str(), phase, t, c.launch_ns, c.get_device_ns,
                c.event_record_ns, callbacks);
    std::fflush(stdout);
  };
  auto phase = [&](const char* name, int phase_reps) {
    const double t = ms();
    const auto before = g_callbacks.load();
    const Costs c = measure(n, phase_reps, s, e);
    print(name, t, c, g_callbacks.load() - before);
  };

  if (scenario == "timeline") {
    for (int k = 0; k < 12; ++k) {
      const auto next = start + std::chrono::milliseconds(250 * (k + 1));
      phase(("t" + std::to_string(k)).c_str(), 1);  // one repetition: a slot of about 100 ms
      std::this_thread::sleep_until(next);
    }
    return 0;
  }

  Subscriber sub;
  const bool cupti = scenario != "none";
  if (cupti) {
    // as the probe's default: in the driver domain only the traced-only calls (direct launches, memsets)
    sub.sync_ids = callback_ids(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_SIZE, true);
    sub.runtime_launch_ids = callback_ids(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_SIZE, false);
    sub.driver_launch_ids = callback_ids(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_SIZE, false);
    sub.subscribe();
  }
  const bool runtime = scenario != "toggle-driver", driver = scenario != "toggle-runtime";
  const bool switches = cupti && scenario != "sync";

  phase("before", reps);
  if (switches) sub.launches(1, runtime, driver);
  if (scenario == "toggle-thread") {
    std::thread off([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      sub.launches(0, runtime, driver);
    });
    phase("during", reps);
    off.join();
  } else {
    phase("during", reps);
    if (scenario == "resubscribe") {
      check_cupti(cuptiUnsubscribe(sub.handle), "cuptiUnsubscribe");
      sub.subscribe();
    } else if (switches && scenario != "keep") {
      sub.launches(0, runtime, driver);
    }
  }
  phase("after", reps);
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  phase("later", reps);
  return 0;
}
