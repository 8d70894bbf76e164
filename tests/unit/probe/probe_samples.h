// Small valid probe documents shared by the probe's I/O tests: a stream with one read and a report with
// one site.
#pragma once

#include <cstdint>

#include "analysis/analysis.h"
#include "stream_builder.h"

namespace synclint::probe::testing {

inline EventStream sample_stream() {
  StreamBuilder b;
  const auto site = b.site("/w/train.py", 42, "train_step");
  b.kernel(0, 5, 10, 1010);
  b.copy_d2h(10, 5, 1010, 1012, site);
  b.sync(20, 1015, site);
  b.kernel(1115, 5, 1125, 2125);
  b.s.dropped_activity_records = 2;
  return b.done();
}

inline ProbeReport sample_report(std::int32_t rank, double saving) {
  ProbeReport r;
  r.run.command = {"python3", "train.py"};
  r.run.cwd = "/w";
  r.run.hostname = "gpu1";
  r.run.pid = 100 + rank;
  r.run.rank = rank;
  r.run.gpu_name = "NVIDIA H200";
  r.run.wall_ms = 1000 + rank;
  r.run.callback_overhead_ns = 1200;
  r.runs = {r.run};
  SiteResult s;
  s.site = {"/w/train.py", 42, "train_step", "python"};
  s.api = "cudaStreamSynchronize";
  s.rule_guess = "SYNC001|SYNC003";
  s.calls = 300;
  s.traced_calls = 75;
  s.host_blocked_ms = 12.5;
  s.traced_host_blocked_ms = 4.5;
  s.replayed_blocked_ms = 13.75;
  s.gpu_idle_ms = 9.25;
  s.predicted_saving_ms = saving;
  s.share_of_run = saving / r.run.wall_ms;
  s.saving_if_removed_ms = saving + 1;
  s.wait_saving_ms = saving / 2;
  s.python_call_ms = saving / 10;
  r.sites.push_back(s);
  r.syncs = 300;
  r.host_blocked_ms = 12.5;
  r.gpu_idle_ms = 20;
  r.windows = 3;
  r.sampled_fraction = rank == 0 ? 0.25 : 1.0;
  return r;
}

}  // namespace synclint::probe::testing
