// A model of the GPU's side of traced calls that were recorded without GPU activity records (sampled
// tracing with SYNCLINT_PROBE_GPU_RECORDS=first, the default: the records are on for the first stretch
// only, because switched on mid-run they leave a lasting cost on the H200; with `model` they are never on
// and nothing is learned: every duration is a guess until the syncs fit it; docs/probe.md). It learns from
// the chunks that have records how long the work of each launch takes (by what was launched: kernel
// function and grid, or copy kind and size), which GPU stream each CUDA stream handle is, and how soon
// work queued on an idle stream starts after its launch call returns. For the calls marked
// `gpu_modelled` it then adds the GPU activities the records would have held (work never seen gets the
// durations of its family, the same kernel with other sizes, or else of its kind): each one queued on
// its stream behind the one before, starting no sooner than its launch call's return plus that latency,
// and fitted to the syncs, which tell when the GPU had finished (a sync that waited ends when the stream
// drained; one that did not wait found it drained). Plain C++, like the rest of the analysis: tested on
// synthetic streams and recordings in CI.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "clock.h"
#include "events.h"

namespace synclint::probe {

class GpuModel {
 public:
  // Learns from the chunk's calls that have a launch key and a GPU activity linked by correlation id.
  void learn(const EventStream& chunk);
  // Adds modelled activities (kept sorted by start) for the chunk's `gpu_modelled` calls that queue GPU
  // work; returns how many it added.
  std::size_t synthesize(EventStream& chunk);

  // What the model knows (for tests and the probe's debug counters).
  bool knows(std::uint64_t launch_key) const { return work_.count(launch_key) != 0; }
  double duration_ns(std::uint64_t launch_key) const;  // the median of the learned durations, or 0
  double latency_ns() const { return latency_.value(kDefaultLatencyNs); }
  std::uint64_t modelled() const { return modelled_; }
  std::uint64_t unknown_work() const { return unknown_work_; }  // modelled with no duration of its own
  double return_ns() const { return return_.value(kDefaultReturnNs); }
  double sync_work_ns() const { return sync_work_.value(kSyncWorkNs); }
  double queue_gap_ns() const { return queue_gap_.value(0); }
  // How the syncs re-timed the modelled work (debug counters): fits that stretched the learned durations
  // (the work took longer than modelled), that shrank them, and that moved the last activities earlier,
  // with the sums of the logarithms of the factors (their geometric means tell how far off the learned
  // durations were).
  struct FitStats {
    std::uint64_t longer = 0, shorter = 0, moved = 0;
    double log_longer = 0, log_shorter = 0;
  };
  const FitStats& fit_stats() const { return fits_; }

  // Before anything is learned (no GPU records at all: SYNCLINT_PROBE_GPU_RECORDS=model), the medians the
  // first stretch learned on the H200 (29 processes of runs 37-42: latency 1.56 us, return 3.22 us).
  static constexpr double kDefaultLatencyNs = 1500;   // launch call's return to start, idle stream, unlearned
  static constexpr double kDefaultReturnNs = 3200;    // the GPU's end to a waiting sync's return
  static constexpr double kGuessedDurationNs = 2000;  // work of a kind never seen, until a sync fits it
  static constexpr double kSyncWorkNs = 1000;         // a sync's own host work when it need not wait, unlearned
  static constexpr std::size_t kSamples = 31;         // recent samples kept per quantity (medians)
  static constexpr double kMaxFactor = 1e4;           // the most a sync stretches modelled durations

 private:
  // The last kSamples values of one quantity; value() is their median.
  struct Samples {
    std::vector<double> v;
    std::size_t next = 0;
    void add(double x);
    double value(double fallback) const;
  };
  struct Work {
    Samples duration;
    std::string name;
    GpuActivityKind kind = GpuActivityKind::Kernel;
  };
  using StreamKey = std::pair<std::uint32_t, std::uint32_t>;  // (device, stream) as the records name it
  // One modelled activity not yet fitted to a sync: where its launch allows it to start, its duration.
  struct Pending {
    std::size_t index;  // into the chunk's gpu vector
    double launch;      // its launch call's start
    double earliest;    // its launch call's return + latency
    double duration;
    bool known;  // its launch key was learned (else its duration is its family's or its kind's)
    bool copy;   // a copy or a memset: never seen, it keeps its guess while unseen kernels can take the time
    bool takes = true;  // never seen and not a copy: among those that take what a sync shows (fit)
  };
  struct Queue {
    double ready = 0;  // when the last modelled activity ends
    double base = 0;   // when the stream's work before the pending activities ended
    std::vector<Pending> pending;
  };

  StreamKey stream_for(std::uint64_t handle) const;
  double at(std::uint64_t ns) { return clock_.at(ns); }
  std::uint64_t ns_at(double t) const { return clock_.ns_at(t); }
  void note_ready(const StreamKey& key, double ready);  // a stream's work ends no sooner than `ready`
  static constexpr double kNever = RelativeClock::kNever;  // a stream with no work yet
  // Re-times the queue's pending activities so that the last ends at `target`, then forgets them: longer,
  // those never seen first (their durations were guesses: the kernels and graphs that could start within
  // what the sync waited past the last one's earliest start, by one factor, then copies and memsets,
  // since a read's device-to-host copy of a scalar takes a few us however long the kernel before it ran),
  // then all learned ones by one factor; shorter, all by one factor, or, where their launches plus the
  // learned latency already end too late, the last ones moved earlier as far as their launch calls allow
  // (and shortened if need be).
  void fit(Queue& q, double target, double gap, std::vector<GpuActivity>& gpu);

  std::unordered_map<std::uint64_t, Work> work_;
  std::unordered_map<std::uint64_t, std::map<StreamKey, std::uint64_t>> streams_;  // handle -> stream -> times seen
  std::map<StreamKey, std::uint64_t> stream_use_;
  Samples latency_, return_, sync_work_;  // sync_work_: how long a sync takes that need not wait
  Samples queue_gap_;  // from the end of the work before to the start of work queued behind it
  std::unordered_map<std::uint64_t, Samples> family_duration_;  // fallback: the same function, other sizes
  std::unordered_map<std::uint32_t, Samples> kind_duration_;    // last fallback: per GpuActivityKind
  std::map<StreamKey, double> ready_;                          // across chunks
  RelativeClock clock_;  // every time of the model: in ns from the first it saw
  std::uint64_t modelled_ = 0, unknown_work_ = 0;
  FitStats fits_;
};

// A full recording (every launch traced, every GPU record kept) as the probe with
// SYNCLINT_PROBE_GPU_RECORDS=first would have handed it over if the records had been off from `from_ns`
// on: the calls keep the launch keys and stream handles the recording carries (SYNCLINT_PROBE_RECORD
// writes them); in an older recording, without them, each call that queued GPU work gets a launch key from
// what its record ran (the kernel's name, the copy's name, so kernels of one name with different grids
// share a key) and the default stream handle. A copy's family is its direction, read from its record's
// name, as the probe reads it from the copy's kind. The calls from `from_ns` on are marked modelled, and
// the GPU records that start from then on are dropped. For checking the model against the recorded GPU
// (bench/model_check, tests on the recordings of runtime_probe/testdata).
EventStream recording_as_modelled(const EventStream& s, std::uint64_t from_ns);

}  // namespace synclint::probe
