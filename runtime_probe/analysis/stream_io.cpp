#include "analysis/stream_io.h"

#include <array>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "analysis/json_util.h"
#include "core/json_values.h"

namespace synclint::probe {
namespace {

using nlohmann::json;
using ojson = nlohmann::ordered_json;

constexpr std::array<std::pair<HostCallKind, std::string_view>, 7> kHostKinds{{
    {HostCallKind::StreamSynchronize, "stream_sync"},
    {HostCallKind::DeviceSynchronize, "device_sync"},
    {HostCallKind::EventSynchronize, "event_sync"},
    {HostCallKind::BlockingCopy, "blocking_copy"},
    {HostCallKind::AsyncCopy, "async_copy"},
    {HostCallKind::Launch, "launch"},
    {HostCallKind::Other, "other"},
}};

constexpr std::array<std::pair<GpuActivityKind, std::string_view>, 4> kGpuKinds{{
    {GpuActivityKind::Kernel, "kernel"},
    {GpuActivityKind::Memcpy, "memcpy"},
    {GpuActivityKind::Memset, "memset"},
    {GpuActivityKind::Other, "other"},
}};

template <typename Kind, std::size_t N>
Kind kind_from(const std::array<std::pair<Kind, std::string_view>, N>& table, const std::string& text,
               const std::string& where) {
  for (const auto& [kind, name] : table)
    if (name == text) return kind;
  throw ProbeError(where + ": unknown kind \"" + text + "\"");
}

const json& record_field(const json& rec, std::size_t i, const std::string& where) {
  if (!rec.is_array() || rec.size() <= i) throw ProbeError(where + ": record is not an array of the documented length");
  return rec[i];
}

template <typename T>
T get_as(const json& value, const std::string& where) {
  return json_values::get<T, ProbeError>(value, where);
}

}  // namespace

std::string_view to_string(HostCallKind kind) {
  for (const auto& [k, name] : kHostKinds)
    if (k == kind) return name;
  return "other";
}

std::string_view to_string(GpuActivityKind kind) {
  for (const auto& [k, name] : kGpuKinds)
    if (k == kind) return name;
  return "other";
}

std::string stream_to_json(const EventStream& s) {
  ojson sites = ojson::array();
  for (const auto& site : s.sites) sites.push_back({site.path, site.line, site.function, site.language});
  ojson host = ojson::array();
  for (const auto& h : s.host) {
    host.push_back({h.start_ns, h.end_ns, h.thread, h.correlation_id, to_string(h.kind), h.api, h.site});
    // Optional: the eighth field, the probe's own time; the ninth to eleventh, what the call queued
    // (launch key, family, stream handle: recordings made since the GPU model, for bench/model_check);
    // the twelfth, how long a blocking call's thread waited for a CPU inside it; the thirteenth and
    // fourteenth, a kernel launch's blocks and threads per block. Each needs those before it.
    const bool grid = h.launch_blocks != 0 || h.launch_block_threads != 0;
    const bool descheduled = grid || h.descheduled_ns != 0;
    const bool keys = descheduled || h.launch_key != 0 || h.launch_family != 0 || h.stream_handle != 0;
    if (h.probe_ns != 0 || keys) host.back().push_back(h.probe_ns);
    if (keys) {
      host.back().push_back(h.launch_key);
      host.back().push_back(h.launch_family);
      host.back().push_back(h.stream_handle);
    }
    if (descheduled) host.back().push_back(h.descheduled_ns);
    if (grid) {
      host.back().push_back(h.launch_blocks);
      host.back().push_back(h.launch_block_threads);
    }
  }
  ojson gpu = ojson::array();
  for (const auto& g : s.gpu)
    gpu.push_back({g.start_ns, g.end_ns, g.device, g.stream, g.correlation_id, to_string(g.kind), g.name});
  ojson doc = {{"format", kStreamFormat},         {"version", kStreamVersion},
              {"run_start_ns", s.run_start_ns},   {"run_end_ns", s.run_end_ns},
              {"dropped_activity_records", s.dropped_activity_records},
              {"sites", std::move(sites)},         {"host", std::move(host)},
              {"gpu", std::move(gpu)}};
  if (s.callback_overhead_ns != 0) doc["callback_overhead_ns"] = s.callback_overhead_ns;  // optional too
  if (!s.python_calls.empty()) {  // optional: older readers ignore the key
    ojson calls = ojson::array();
    for (const auto& c : s.python_calls) calls.push_back({c.start_ns, c.end_ns, c.thread, c.site});
    doc["python_calls"] = std::move(calls);
  }
  // One record per line keeps recordings diffable and compact.
  std::string out = "{";
  bool first = true;
  for (const auto& [key, value] : doc.items()) {
    out += first ? "\n" : ",\n";
    first = false;
    out += detail::dump_json(ojson(key)) + ": ";
    if (value.is_array()) {
      out += "[";
      for (std::size_t i = 0; i < value.size(); ++i) out += (i ? ",\n  " : "\n  ") + detail::dump_json(value[i]);
      out += value.empty() ? "]" : "\n]";
    } else {
      out += detail::dump_json(value);
    }
  }
  out += "\n}\n";
  return out;
}

EventStream parse_stream(std::string_view text, std::string_view source) {
  const std::string src(source);
  json doc = detail::parse_json_document(text, src);
  if (!doc.is_object() || !doc.contains("format") || doc["format"] != kStreamFormat)
    throw ProbeError(src + ": not a synclint probe stream (\"format\" must be \"" + std::string(kStreamFormat) + "\")");
  const auto optional = [&]<typename T>(const char* key, T fallback) {
    return json_values::member<T, ProbeError>(doc, key, fallback, src);
  };
  const int version = optional("version", 0);
  if (version > kStreamVersion || version < 1)
    throw ProbeError(src + ": stream version " + std::to_string(version) + " is not supported (this synclint reads up to " +
                     std::to_string(kStreamVersion) + "); use a newer synclint");
  EventStream s;
  s.run_start_ns = optional("run_start_ns", std::uint64_t{0});
  s.run_end_ns = optional("run_end_ns", std::uint64_t{0});
  s.dropped_activity_records = optional("dropped_activity_records", std::uint64_t{0});
  s.callback_overhead_ns = optional("callback_overhead_ns", std::uint64_t{0});
  const auto array_of = [&](const char* key) -> const json& {
    static const json empty = json::array();
    auto it = doc.find(key);
    if (it == doc.end()) return empty;
    if (!it->is_array()) throw ProbeError(src + ": \"" + key + "\" must be an array");
    return *it;
  };
  std::size_t i = 0;
  for (const auto& rec : array_of("sites")) {
    const std::string where = src + ": sites[" + std::to_string(i++) + "]";
    Site site;
    site.path = get_as<std::string>(record_field(rec, 0, where), where);
    if (site.path.empty()) throw ProbeError(where + ": the path is empty");
    site.line = get_as<std::uint32_t>(record_field(rec, 1, where), where);
    site.function = get_as<std::string>(record_field(rec, 2, where), where);
    site.language = get_as<std::string>(record_field(rec, 3, where), where);
    s.sites.push_back(std::move(site));
  }
  i = 0;
  for (const auto& rec : array_of("host")) {
    const std::string where = src + ": host[" + std::to_string(i++) + "]";
    HostCall h;
    h.start_ns = get_as<std::uint64_t>(record_field(rec, 0, where), where);
    h.end_ns = get_as<std::uint64_t>(record_field(rec, 1, where), where);
    h.thread = get_as<std::uint32_t>(record_field(rec, 2, where), where);
    h.correlation_id = get_as<std::uint64_t>(record_field(rec, 3, where), where);
    h.kind = kind_from(kHostKinds, get_as<std::string>(record_field(rec, 4, where), where), where);
    h.api = get_as<std::string>(record_field(rec, 5, where), where);
    h.site = get_as<std::int32_t>(record_field(rec, 6, where), where);
    if (rec.size() > 7) h.probe_ns = get_as<std::uint64_t>(rec[7], where);
    if (rec.size() > 10) {
      h.launch_key = get_as<std::uint64_t>(rec[8], where);
      h.launch_family = get_as<std::uint64_t>(rec[9], where);
      h.stream_handle = get_as<std::uint64_t>(rec[10], where);
    }
    if (rec.size() > 11) h.descheduled_ns = get_as<std::uint64_t>(rec[11], where);
    if (rec.size() > 13) {
      h.launch_blocks = get_as<std::uint64_t>(rec[12], where);
      h.launch_block_threads = get_as<std::uint32_t>(rec[13], where);
    }
    if (h.end_ns < h.start_ns) throw ProbeError(where + ": ends before it starts");
    if (h.descheduled_ns > h.end_ns - h.start_ns) throw ProbeError(where + ": descheduled longer than the call lasted");
    if (h.site < -1 || h.site >= static_cast<std::int32_t>(s.sites.size()))
      throw ProbeError(where + ": site index " + std::to_string(h.site) + " out of range");
    s.host.push_back(std::move(h));
  }
  i = 0;
  for (const auto& rec : array_of("gpu")) {
    const std::string where = src + ": gpu[" + std::to_string(i++) + "]";
    GpuActivity g;
    g.start_ns = get_as<std::uint64_t>(record_field(rec, 0, where), where);
    g.end_ns = get_as<std::uint64_t>(record_field(rec, 1, where), where);
    g.device = get_as<std::uint32_t>(record_field(rec, 2, where), where);
    g.stream = get_as<std::uint32_t>(record_field(rec, 3, where), where);
    g.correlation_id = get_as<std::uint64_t>(record_field(rec, 4, where), where);
    g.kind = kind_from(kGpuKinds, get_as<std::string>(record_field(rec, 5, where), where), where);
    g.name = get_as<std::string>(record_field(rec, 6, where), where);
    if (g.end_ns < g.start_ns) throw ProbeError(where + ": ends before it starts");
    s.gpu.push_back(std::move(g));
  }
  i = 0;
  for (const auto& rec : array_of("python_calls")) {
    const std::string where = src + ": python_calls[" + std::to_string(i++) + "]";
    PythonCall c;
    c.start_ns = get_as<std::uint64_t>(record_field(rec, 0, where), where);
    c.end_ns = get_as<std::uint64_t>(record_field(rec, 1, where), where);
    c.thread = get_as<std::uint32_t>(record_field(rec, 2, where), where);
    c.site = get_as<std::int32_t>(record_field(rec, 3, where), where);
    if (c.end_ns < c.start_ns) throw ProbeError(where + ": ends before it starts");
    if (c.site < -1 || c.site >= static_cast<std::int32_t>(s.sites.size()))
      throw ProbeError(where + ": site index " + std::to_string(c.site) + " out of range");
    s.python_calls.push_back(c);
  }
  return s;
}

std::string read_text_file(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw ProbeError(file.string() + ": cannot open for reading");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw ProbeError(file.string() + ": read error");
  return text.str();
}

void write_text_file(const std::filesystem::path& file, std::string_view text) {
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  if (!out) throw ProbeError(file.string() + ": cannot open for writing");
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  out.flush();
  if (!out) throw ProbeError(file.string() + ": write error");
}

EventStream read_stream(const std::filesystem::path& file) { return parse_stream(read_text_file(file), file.string()); }

void write_stream(const EventStream& stream, const std::filesystem::path& file) {
  write_text_file(file, stream_to_json(stream));
}

}  // namespace synclint::probe
