// Reading and writing recorded EventStreams as compact JSON ("synclint-probe-stream", docs/probe.md):
// the probe dumps its raw window with SYNCLINT_PROBE_RECORD=1, tests replay committed recordings.
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>

#include "analysis/events.h"

namespace synclint::probe {

// Any invalid probe input (stream, report, trace): the message names the source and what is wrong.
class ProbeError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

inline constexpr std::string_view kStreamFormat = "synclint-probe-stream";
inline constexpr int kStreamVersion = 1;

std::string_view to_string(HostCallKind kind);     // "stream_sync", "device_sync", ...
std::string_view to_string(GpuActivityKind kind);  // "kernel", "memcpy", "memset", "other"

std::string stream_to_json(const EventStream& stream);
// Throws ProbeError (invalid JSON, wrong format, newer version, malformed record, site index out of range).
EventStream parse_stream(std::string_view json_text, std::string_view source = "<stream>");
EventStream read_stream(const std::filesystem::path& file);
void write_stream(const EventStream& stream, const std::filesystem::path& file);

// Whole-file helpers shared by the readers and writers (throw ProbeError naming the file).
std::string read_text_file(const std::filesystem::path& file);
void write_text_file(const std::filesystem::path& file, std::string_view text);

}  // namespace synclint::probe
