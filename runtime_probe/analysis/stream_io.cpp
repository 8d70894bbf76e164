#include "analysis/stream_io.h"

#include <array>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
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

namespace {

template <typename T>
T field(const json& rec, std::size_t i, const std::string& where) {
  return get_as<T>(record_field(rec, i, where), where);
}

// A host call, GPU activity or Python call, once all its fields are read.
template <typename Record>
void check_span(const Record& r, const std::string& where) {
  if (r.end_ns < r.start_ns) throw ProbeError(where + ": ends before it starts");
}

Site read_site(const json& rec, const std::string& where) {
  Site site;
  site.path = field<std::string>(rec, 0, where);
  if (site.path.empty()) throw ProbeError(where + ": the path is empty");
  site.line = field<std::uint32_t>(rec, 1, where);
  site.function = field<std::string>(rec, 2, where);
  site.language = field<std::string>(rec, 3, where);
  return site;
}

// The site index is checked once all sites are read (RecordReader::check).
HostCall read_host_call(const json& rec, const std::string& where) {
  HostCall h;
  h.start_ns = field<std::uint64_t>(rec, 0, where);
  h.end_ns = field<std::uint64_t>(rec, 1, where);
  h.thread = field<std::uint32_t>(rec, 2, where);
  h.correlation_id = field<std::uint64_t>(rec, 3, where);
  h.kind = kind_from(kHostKinds, field<std::string>(rec, 4, where), where);
  h.api = field<std::string>(rec, 5, where);
  h.site = field<std::int32_t>(rec, 6, where);
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
  check_span(h, where);
  if (h.descheduled_ns > h.end_ns - h.start_ns) throw ProbeError(where + ": descheduled longer than the call lasted");
  return h;
}

GpuActivity read_gpu_activity(const json& rec, const std::string& where) {
  const GpuActivity g{.start_ns = field<std::uint64_t>(rec, 0, where),  // a braced list reads them in order
                      .end_ns = field<std::uint64_t>(rec, 1, where),
                      .device = field<std::uint32_t>(rec, 2, where),
                      .stream = field<std::uint32_t>(rec, 3, where),
                      .correlation_id = field<std::uint64_t>(rec, 4, where),
                      .kind = kind_from(kGpuKinds, field<std::string>(rec, 5, where), where),
                      .name = field<std::string>(rec, 6, where)};
  check_span(g, where);
  return g;
}

// The site index is checked once all sites are read (RecordReader::check).
PythonCall read_python_call(const json& rec, const std::string& where) {
  const PythonCall c{.start_ns = field<std::uint64_t>(rec, 0, where),
                     .end_ns = field<std::uint64_t>(rec, 1, where),
                     .thread = field<std::uint32_t>(rec, 2, where),
                     .site = field<std::int32_t>(rec, 3, where)};
  check_span(c, where);
  return c;
}

// The record arrays of a stream, each record converted when the parser reaches it: the document never
// holds them, so reading takes about what the EventStream itself does. The first bad record of each array
// is kept and reported once the whole input is known to be JSON and a stream, the arrays in the order
// sites, host, gpu, python_calls, as a reader of the whole document would.
class RecordReader {
 public:
  RecordReader(EventStream& stream, const std::string& source) : s_(stream), src_(source) {}

  void operator()(const std::string& key, std::size_t index, json&& rec) {
    Array& array = arrays_[key];
    if (index == 0) {  // a key given twice: its last array counts, as in a document
      array.error.reset();
      clear(key);
    }
    if (array.error) return;
    const std::string where = src_ + ": " + key + "[" + std::to_string(index) + "]";
    try {
      if (key == "sites")
        s_.sites.push_back(read_site(rec, where));
      else if (key == "host")
        s_.host.push_back(read_host_call(rec, where));
      else if (key == "gpu")
        s_.gpu.push_back(read_gpu_activity(rec, where));
      else
        s_.python_calls.push_back(read_python_call(rec, where));
    } catch (const ProbeError& e) {
      array.error = e.what();
    }
  }

  // Throws the first error of the array `key` (a record's own, or a site index out of range).
  void check(const std::string& key) const {
    const auto it = arrays_.find(key);
    const std::optional<std::string> error = it == arrays_.end() ? std::nullopt : it->second.error;
    if (key == "host") check_sites(s_.host, key);
    if (key == "python_calls") check_sites(s_.python_calls, key);
    if (error) throw ProbeError(*error);
  }

 private:
  struct Array {
    std::optional<std::string> error;  // the first bad record's (the records before it are kept)
  };

  void clear(const std::string& key) {
    if (key == "sites") s_.sites.clear();
    if (key == "host") s_.host.clear();
    if (key == "gpu") s_.gpu.clear();
    if (key == "python_calls") s_.python_calls.clear();
  }

  template <typename Record>
  void check_sites(const std::vector<Record>& records, const std::string& key) const {
    for (std::size_t i = 0; i < records.size(); ++i) {
      const std::int32_t site = records[i].site;
      if (site < -1 || site >= static_cast<std::int32_t>(s_.sites.size()))
        throw ProbeError(src_ + ": " + key + "[" + std::to_string(i) + "]: site index " + std::to_string(site) +
                         " out of range");
    }
  }

  EventStream& s_;
  const std::string& src_;
  std::map<std::string, Array, std::less<>> arrays_;
};

template <class Input>
EventStream parse_stream_input(Input&& input, const std::string& src) {
  EventStream s;
  RecordReader records(s, src);
  json_reader::Options options;
  options.streamed = {"sites", "host", "gpu", "python_calls"};
  options.on_element = std::ref(records);
  json doc;
  try {
    doc = json_reader::parse(std::forward<Input>(input), options);
  } catch (const json_reader::Error& e) {
    throw ProbeError(src + ": not valid JSON: " + e.what());
  }
  if (!doc.is_object() || !doc.contains("format") || doc["format"] != kStreamFormat)
    throw ProbeError(src + ": not a synclint probe stream (\"format\" must be \"" + std::string(kStreamFormat) + "\")");
  const auto optional = [&]<typename T>(const char* key, T fallback) {
    return json_values::member<T, ProbeError>(doc, key, fallback, src);
  };
  const int version = optional("version", 0);
  if (version > kStreamVersion || version < 1)
    throw ProbeError(src + ": stream version " + std::to_string(version) + " is not supported (this synclint reads up to " +
                     std::to_string(kStreamVersion) + "); use a newer synclint");
  s.run_start_ns = optional("run_start_ns", std::uint64_t{0});
  s.run_end_ns = optional("run_end_ns", std::uint64_t{0});
  s.dropped_activity_records = optional("dropped_activity_records", std::uint64_t{0});
  s.callback_overhead_ns = optional("callback_overhead_ns", std::uint64_t{0});
  for (const std::string key : {"sites", "host", "gpu", "python_calls"}) {
    if (auto it = doc.find(key); it != doc.end() && !it->is_array())
      throw ProbeError(src + ": \"" + key + "\" must be an array");
    records.check(key);
  }
  return s;
}

}  // namespace

EventStream parse_stream(std::string_view text, std::string_view source) {
  return parse_stream_input(text, std::string(source));
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

EventStream read_stream(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw ProbeError(file.string() + ": cannot open for reading");
  EventStream stream = parse_stream_input(in, file.string());
  if (in.bad()) throw ProbeError(file.string() + ": read error");
  return stream;
}

void write_stream(const EventStream& stream, const std::filesystem::path& file) {
  write_text_file(file, stream_to_json(stream));
}

}  // namespace synclint::probe
