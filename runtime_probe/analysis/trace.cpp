#include "analysis/trace.h"

#include <algorithm>
#include <limits>
#include <optional>

#include <nlohmann/json.hpp>

#include "analysis/json_util.h"
#include "analysis/replay.h"
#include "analysis/stream_io.h"

namespace synclint::probe {
namespace {

using nlohmann::json;

constexpr const char* kTruncatedKey = "synclint_truncated_after_events";

std::string basename_of(const std::string& path) {
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::optional<std::uint64_t> origin_of(const json& doc) {
  auto other = doc.find("otherData");
  if (other == doc.end() || !other->is_object()) return std::nullopt;
  auto o = other->find("synclint_origin_ns");
  if (o == other->end() || !o->is_number_unsigned()) return std::nullopt;
  return o->get<std::uint64_t>();
}

}  // namespace

TraceWriter::TraceWriter(std::ostream& out, std::int64_t pid, std::string process_name)
    : out_(out), pid_(pid), idle_(std::make_unique<detail::IdleTracker>()) {
  out_ << "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[";
  event(detail::dump_json(json{{"ph", "M"}, {"name", "process_name"}, {"pid", pid_}, {"tid", 0}, {"args", {{"name", process_name}}}}));
}

TraceWriter::~TraceWriter() { finish(); }

std::int64_t TraceWriter::stream_track(std::uint32_t device, std::uint32_t stream) {
  return 1'000'000 + static_cast<std::int64_t>(device) * 100'000 + stream;
}

std::int64_t TraceWriter::idle_track(std::uint32_t device) { return 900'000 + static_cast<std::int64_t>(device); }

void TraceWriter::event(const std::string& obj) {
  if (finished_) return;
  ++events_;
  out_ << (first_ ? "\n" : ",\n") << obj;
  first_ = false;
}

void TraceWriter::name_track(std::int64_t tid, const std::string& name, std::int64_t sort_index) {
  if (!named_tracks_.insert(tid).second) return;
  event(detail::dump_json(json{{"ph", "M"}, {"name", "thread_name"}, {"pid", pid_}, {"tid", tid}, {"args", {{"name", name}}}}));
  event(detail::dump_json(json{{"ph", "M"}, {"name", "thread_sort_index"}, {"pid", pid_}, {"tid", tid}, {"args", {{"sort_index", sort_index}}}}));
}

double TraceWriter::ts_us(std::uint64_t ns) const {
  return ns >= origin_ns_ ? static_cast<double>(ns - origin_ns_) / 1000.0 : -static_cast<double>(origin_ns_ - ns) / 1000.0;
}

void TraceWriter::add(const EventStream& w) {
  if (finished_ || truncated_) return;
  if (limit_ != 0 && events_ >= limit_) {
    truncated_ = true;
    return;
  }
  if (!origin_set_) {
    std::uint64_t origin = w.run_start_ns != 0 ? w.run_start_ns : std::numeric_limits<std::uint64_t>::max();
    for (const auto& h : w.host) origin = std::min(origin, h.start_ns);
    for (const auto& g : w.gpu) origin = std::min(origin, g.start_ns);
    if (w.host.empty() && w.gpu.empty()) return;
    origin_ns_ = origin;
    origin_set_ = true;
  }
  // Window-local site indices -> labels kept for the whole trace (idle gaps may refer to earlier ones).
  std::vector<std::int32_t> ids(w.sites.size());
  for (std::size_t i = 0; i < w.sites.size(); ++i) {
    const std::string label = basename_of(w.sites[i].path) + ":" + std::to_string(w.sites[i].line);
    auto [it, fresh] = label_ids_.emplace(label, static_cast<std::int32_t>(labels_.size()));
    if (fresh) labels_.push_back(label);
    ids[i] = it->second;
  }
  std::vector<HostCall> host = w.host;
  for (auto& h : host) h.site = h.site >= 0 && static_cast<std::size_t>(h.site) < ids.size() ? ids[h.site] : -1;
  std::stable_sort(host.begin(), host.end(), [](const HostCall& a, const HostCall& b) { return a.start_ns < b.start_ns; });
  std::vector<GpuActivity> gpu = w.gpu;
  std::stable_sort(gpu.begin(), gpu.end(), [](const GpuActivity& a, const GpuActivity& b) { return a.start_ns < b.start_ns; });

  for (const auto& h : host) {
    const std::int64_t tid = h.thread;
    name_track(tid, "host thread " + std::to_string(h.thread), tid);
    const bool blocking = detail::is_blocking(h.kind);
    const std::string name = blocking && h.site >= 0 ? labels_[static_cast<std::size_t>(h.site)] + " " + h.api : h.api;
    json args = {{"api", h.api}, {"kind", std::string(to_string(h.kind))}, {"correlation", h.correlation_id}};
    if (h.site >= 0) args["site"] = labels_[static_cast<std::size_t>(h.site)];
    if (h.descheduled_ns != 0) args["descheduled_us"] = static_cast<double>(h.descheduled_ns) / 1000.0;  // waiting for a CPU
    event(detail::dump_json(json{{"ph", "X"}, {"cat", blocking ? "sync" : "host"}, {"name", name}, {"pid", pid_}, {"tid", tid},
               {"ts", ts_us(h.start_ns)}, {"dur", static_cast<double>(h.end_ns - h.start_ns) / 1000.0}, {"args", args}}));
  }
  for (const auto& g : gpu) {
    const std::int64_t tid = stream_track(g.device, g.stream);
    name_track(tid, "GPU " + std::to_string(g.device) + " stream " + std::to_string(g.stream), tid);
    event(detail::dump_json(json{{"ph", "X"}, {"cat", std::string(to_string(g.kind))}, {"name", g.name.empty() ? std::string(to_string(g.kind)) : g.name},
               {"pid", pid_}, {"tid", tid}, {"ts", ts_us(g.start_ns)},
               {"dur", static_cast<double>(g.end_ns - g.start_ns) / 1000.0},
               {"args", {{"correlation", g.correlation_id}, {"device", g.device}, {"stream", g.stream}}}}));
  }
  idle_->feed(host, gpu, [&](const detail::IdleGap& gap) {
    const std::int64_t tid = idle_track(gap.device);
    name_track(tid, "GPU " + std::to_string(gap.device) + " idle", tid);
    std::string name = "GPU idle";
    if (gap.site >= 0) name += " after " + labels_[static_cast<std::size_t>(gap.site)] + " " + gap.api;
    else if (!gap.api.empty()) name += " after " + gap.api;
    event(detail::dump_json(json{{"ph", "X"}, {"cat", "idle"}, {"name", name}, {"pid", pid_}, {"tid", tid}, {"ts", ts_us(gap.start_ns)},
               {"dur", static_cast<double>(gap.end_ns - gap.start_ns) / 1000.0}}));
  });
}

void TraceWriter::finish() {
  if (finished_) return;
  json other = {{"synclint_origin_ns", origin_ns_}};
  if (truncated_) other[kTruncatedKey] = events_;
  out_ << "\n],\"otherData\":" << detail::dump_json(other) << "}\n";
  out_.flush();
  finished_ = true;
}

std::string merge_traces(const std::vector<std::string>& documents) {
  // One process (the common case): its document as written, checked without building it in memory
  // (a bounded trace still holds up to ~500,000 events, ~100 MB).
  if (documents.size() == 1 && documents[0].find("\"traceEvents\":[") != std::string::npos && json::accept(documents[0]))
    return documents[0].ends_with('\n') ? documents[0] : documents[0] + "\n";
  std::vector<json> docs;
  std::uint64_t origin = std::numeric_limits<std::uint64_t>::max();
  for (std::size_t i = 0; i < documents.size(); ++i) {
    json doc = detail::parse_json_document(documents[i], "trace " + std::to_string(i + 1));
    if (!doc.is_object() || !doc.contains("traceEvents") || !doc["traceEvents"].is_array())
      throw ProbeError("trace " + std::to_string(i + 1) + ": not a trace-event document (no traceEvents array)");
    if (auto o = origin_of(doc)) origin = std::min(origin, *o);
    docs.push_back(std::move(doc));
  }
  if (origin == std::numeric_limits<std::uint64_t>::max()) origin = 0;
  json events = json::array();
  std::uint64_t truncated_after = 0;  // a process's trace that stopped at the event limit says so
  json truncated_pids = json::array();
  for (auto& doc : docs) {
    if (auto other = doc.find("otherData"); other != doc.end() && other->is_object()) {
      if (auto t = other->find(kTruncatedKey); t != other->end() && t->is_number_unsigned()) {
        truncated_after += t->get<std::uint64_t>();
        for (const auto& e : doc["traceEvents"])
          if (e.is_object() && e.contains("pid")) {
            truncated_pids.push_back(e["pid"]);
            break;
          }
      }
    }
    const auto o = origin_of(doc);
    const double shift = o ? static_cast<double>(*o - origin) / 1000.0 : 0.0;
    for (auto& e : doc["traceEvents"]) {
      if (e.contains("ts") && e["ts"].is_number()) e["ts"] = e["ts"].get<double>() + shift;
      events.push_back(std::move(e));
    }
  }
  json other = {{"synclint_origin_ns", origin}};
  if (truncated_after > 0) {
    other[kTruncatedKey] = truncated_after;  // summed over the truncated processes
    other["synclint_truncated_pids"] = std::move(truncated_pids);
  }
  json out = {{"displayTimeUnit", "ns"}, {"traceEvents", std::move(events)}, {"otherData", std::move(other)}};
  return detail::dump_json(out) + "\n";
}

bool trace_truncated(std::string_view document) {
  // otherData ends a process's document (TraceWriter streams it last) and comes before traceEvents in a
  // merged one (its keys are written in order): look at both ends, not through the events.
  const std::size_t tail = std::min<std::size_t>(document.size(), 512);
  return document.substr(0, 4096).find(kTruncatedKey) != std::string_view::npos ||
         document.substr(document.size() - tail).find(kTruncatedKey) != std::string_view::npos;
}

}  // namespace synclint::probe
