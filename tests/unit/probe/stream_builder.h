// Builds synthetic event streams for the probe tests; times are given in microseconds.
#pragma once

#include <cstdint>
#include <string>

#include "analysis/events.h"

namespace synclint::probe::testing {

inline std::uint64_t us(double v) { return static_cast<std::uint64_t>(v * 1000.0 + 0.5); }

struct StreamBuilder {
  EventStream s;
  std::uint64_t next_corr = 1;
  std::uint32_t thread = 1;

  std::int32_t site(const std::string& path, std::uint32_t line, const std::string& function = "step") {
    for (std::size_t i = 0; i < s.sites.size(); ++i)
      if (s.sites[i].path == path && s.sites[i].line == line) return static_cast<std::int32_t>(i);
    s.sites.push_back(Site{path, line, function, "python"});
    return static_cast<std::int32_t>(s.sites.size() - 1);
  }
  HostCall& host(double start, double end, HostCallKind kind, const std::string& api, std::int32_t site = -1) {
    HostCall h;
    h.start_ns = us(start);
    h.end_ns = us(end);
    h.thread = thread;
    h.kind = kind;
    h.api = api;
    h.site = site;
    s.host.push_back(h);
    return s.host.back();
  }
  void gpu(double start, double end, std::uint64_t corr, GpuActivityKind kind, const std::string& name,
           std::uint32_t stream = 7) {
    GpuActivity g;
    g.start_ns = us(start);
    g.end_ns = us(end);
    g.stream = stream;
    g.correlation_id = corr;
    g.kind = kind;
    g.name = name;
    s.gpu.push_back(g);
  }
  // A kernel launch on the host at [t, t+host_us] running on the GPU at [gs, ge].
  void kernel(double t, double host_us, double gs, double ge, std::uint32_t stream = 7) {
    auto& h = host(t, t + host_us, HostCallKind::Launch, "cudaLaunchKernel");
    h.correlation_id = next_corr;
    gpu(gs, ge, next_corr++, GpuActivityKind::Kernel, "kernel", stream);
  }
  void copy_d2h(double t, double host_us, double gs, double ge, std::int32_t site) {
    auto& h = host(t, t + host_us, HostCallKind::AsyncCopy, "cudaMemcpyAsync", site);
    h.correlation_id = next_corr;
    gpu(gs, ge, next_corr++, GpuActivityKind::Memcpy, "memcpy DtoH");
  }
  HostCall& sync(double start, double end, std::int32_t site, HostCallKind kind = HostCallKind::StreamSynchronize,
                 const std::string& api = "cudaStreamSynchronize") {
    return host(start, end, kind, api, site);
  }
  // A timed Python call (the `.item()` around a copy and a sync) at [start, end].
  void python_call(double start, double end, std::int32_t site) {
    s.python_calls.push_back(PythonCall{us(start), us(end), thread, site});
  }
  // Sorts and sets the run bounds.
  EventStream done() {
    std::stable_sort(s.host.begin(), s.host.end(), [](auto& a, auto& b) { return a.start_ns < b.start_ns; });
    std::stable_sort(s.gpu.begin(), s.gpu.end(), [](auto& a, auto& b) { return a.start_ns < b.start_ns; });
    s.run_start_ns = 0;
    s.run_end_ns = 0;
    for (auto& h : s.host) s.run_end_ns = std::max(s.run_end_ns, h.end_ns);
    for (auto& g : s.gpu) s.run_end_ns = std::max(s.run_end_ns, g.end_ns);
    return s;
  }
};

}  // namespace synclint::probe::testing
