// Timeline analysis of recorded event streams: per-site host-blocked time, GPU idle after each sync, and
// the what-if estimate (end-to-end time saved if a site did not synchronize), replaying the host and GPU
// timelines without that site's waits. Plain C++, used by the injected probe (in-process, window by
// window, bounded memory) and by the synclint CLI and tests (recorded streams).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "events.h"

namespace synclint::probe {

inline constexpr int kReportVersion = 1;

struct RunInfo {
  std::vector<std::string> command;  // argv of the probed process, when known
  std::string cwd;                   // its working directory (for path mapping)
  std::string hostname;
  std::int64_t pid = 0;
  std::int32_t rank = -1;            // RANK / LOCAL_RANK / SLURM_PROCID when set, else -1
  std::string gpu_name;
  double wall_ms = 0;                // run_end - run_start
  std::string status = "ok";         // "ok", or why there is no/partial data ("cupti-unavailable: ...")
};

struct SiteResult {
  Site site;
  std::string api;             // the blocking API seen most at this site ("cudaStreamSynchronize")
  std::string rule_guess;      // "SYNC001"... from the API pattern, "" when unsure
  std::uint64_t calls = 0;
  double host_blocked_ms = 0;
  double gpu_idle_ms = 0;
  double predicted_saving_ms = 0;
  double share_of_run = 0;     // predicted_saving_ms / wall_ms
};

struct ProbeReport {
  int version = kReportVersion;
  RunInfo run;
  std::vector<SiteResult> sites;  // ordered by predicted_saving_ms, largest first
  std::uint64_t syncs = 0;
  double host_blocked_ms = 0;
  double gpu_idle_ms = 0;
  std::uint64_t dropped_activity_records = 0;
  std::uint64_t windows = 0;      // how many windows were analysed
};

// Consumes the stream window by window; keeps per-site aggregates only, so memory stays bounded.
class Accumulator {
 public:
  // `chunk` holds a contiguous time window (host calls and GPU activities); sites are indices into
  // chunk.sites, which the accumulator merges by (path, line, function).
  void consume(const EventStream& chunk);
  ProbeReport finish(RunInfo run) const;

 private:
  struct Key {
    std::string path;
    std::uint32_t line;
    std::string function;
    auto operator<=>(const Key&) const = default;
  };
  struct Agg {
    Site site;
    std::map<std::string, std::uint64_t> apis;
    std::uint64_t calls = 0;
    double host_blocked_ns = 0, gpu_idle_ns = 0, saving_ns = 0;
  };
  std::map<Key, Agg> sites_;
  std::uint64_t run_start_ns_ = 0, run_end_ns_ = 0, dropped_ = 0, windows_ = 0;
};

}  // namespace synclint::probe
