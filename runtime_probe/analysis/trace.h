// Chrome trace-event JSON (Perfetto and chrome://tracing open it), written window by window:
// one track per host thread (sync calls named "train.py:42 cudaStreamSynchronize"), one track per GPU
// stream (kernels, memcpys, memsets) and a "GPU <n> idle" track with the idle bubbles, each named by
// the sync that caused it. Format details in docs/probe.md.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <ostream>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/events.h"

namespace synclint::probe {

namespace detail {
class IdleTracker;
}

class TraceWriter {
 public:
  // Writes to `out` (kept open by the caller until finish()); `pid` and `process_name` label the process.
  TraceWriter(std::ostream& out, std::int64_t pid, std::string process_name);
  ~TraceWriter();
  TraceWriter(const TraceWriter&) = delete;
  TraceWriter& operator=(const TraceWriter&) = delete;

  void add(const EventStream& window);
  // At most this many trace events are written (0: no limit); later windows are dropped and the
  // document says so (otherData.synclint_truncated_after_events). Default kDefaultEventLimit.
  void set_event_limit(std::size_t events) { limit_ = events; }
  static constexpr std::size_t kDefaultEventLimit = 500'000;  // about 100 MB
  void finish();  // closes the JSON document; idempotent, also called by the destructor

  // Track ids used for GPU streams and the idle track (host threads use their thread number).
  static std::int64_t stream_track(std::uint32_t device, std::uint32_t stream);
  static std::int64_t idle_track(std::uint32_t device);

 private:
  void event(const std::string& json_object);
  void name_track(std::int64_t tid, const std::string& name, std::int64_t sort_index);
  double ts_us(std::uint64_t ns) const;

  std::ostream& out_;
  std::int64_t pid_;
  std::uint64_t origin_ns_ = 0;
  bool origin_set_ = false, first_ = true, finished_ = false, truncated_ = false;
  std::size_t events_ = 0, limit_ = kDefaultEventLimit;
  std::set<std::int64_t> named_tracks_;
  std::vector<std::string> labels_;                    // per global site id: "train.py:42"
  std::map<std::string, std::int32_t> label_ids_;
  std::unique_ptr<detail::IdleTracker> idle_;
};

// Merges trace documents written by several processes into one, aligning them on their recorded
// clock origin (otherData.synclint_origin_ns); the truncation notices of the processes' traces are kept
// (otherData.synclint_truncated_after_events, summed, and synclint_truncated_pids). A single document
// is returned as it is. Throws ProbeError on an invalid document.
std::string merge_traces(const std::vector<std::string>& documents);

// Whether a trace document (one process's or a merged one) stopped at its event limit: its otherData
// holds the truncation notice.
bool trace_truncated(std::string_view document);

}  // namespace synclint::probe
