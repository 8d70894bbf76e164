// Helpers for the emitter unit tests.
#pragma once

#include <sstream>
#include <string>

#include "emit/emit.h"
#include "sample_report.h"

namespace synclint::testing {

inline std::string render(emit::Format format, const Report& report, const emit::Options& options = sample_options()) {
  static const Catalog catalog = sample_catalog();
  std::ostringstream out;
  emit::write(format, out, report, catalog, options);
  return out.str();
}

inline Finding make_finding(std::string path, std::uint32_t line, std::uint32_t column, std::uint32_t end_column,
                            std::string message = "`x.item()` waits for the GPU") {
  return finding("SYNC001", "tensor-item", Severity::Warning, range(std::move(path), line, column, line, end_column),
                 std::move(message));
}

// Options reading sources from one in-memory file.
inline emit::Options options_with_source(const std::string& path, const std::string& text) {
  emit::Options o = sample_options();
  o.read_source = [path, text](const std::string& p) -> std::optional<std::string> {
    if (p == path) return text;
    return std::nullopt;
  };
  return o;
}

inline std::size_t count(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (std::size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + needle.size())) ++n;
  return n;
}

}  // namespace synclint::testing
