// Internal to the analysis: JSON parsing with errors that name their source.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "analysis/stream_io.h"
#include "core/json_reader.h"

namespace synclint::probe::detail {

// Serialises without throwing on invalid UTF-8 (paths and kernel names are bytes): bad sequences become
// U+FFFD.
template <typename Json>
std::string dump_json(const Json& value, int indent = -1) {
  return value.dump(indent, ' ', false, nlohmann::detail::error_handler_t::replace);
}

inline nlohmann::json parse_json_document(std::string_view text, const std::string& source) {
  try {
    return json_reader::parse(text);
  } catch (const json_reader::Error& e) {
    throw ProbeError(source + ": not valid JSON: " + e.what());
  }
}

}  // namespace synclint::probe::detail
