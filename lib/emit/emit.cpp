#include "emit/emit.h"

#include <array>
#include <fstream>
#include <iterator>
#include <system_error>

#include "emit/detail.h"

#ifndef SYNCLINT_SOURCE_ROOT
#define SYNCLINT_SOURCE_ROOT ""
#endif

namespace synclint::emit {

namespace {
constexpr std::array<Format, 5> kFormats{Format::Text, Format::Json, Format::Sarif, Format::Github, Format::Junit};
}

std::optional<Format> parse_format(std::string_view name) {
  for (Format f : kFormats) {
    if (to_string(f) == name) return f;
  }
  return std::nullopt;
}

std::string_view to_string(Format format) {
  switch (format) {
    case Format::Text: return "text";
    case Format::Json: return "json";
    case Format::Sarif: return "sarif";
    case Format::Github: return "github";
    case Format::Junit: return "junit";
  }
  return "text";
}

std::span<const Format> all_formats() { return kFormats; }

void write(Format format, std::ostream& out, const Report& report, const Catalog& catalog, const Options& options) {
  switch (format) {
    case Format::Text: return detail::write_text(out, report, catalog, options);
    case Format::Json: return detail::write_json(out, report, catalog, options);
    case Format::Sarif: return detail::write_sarif(out, report, catalog, options);
    case Format::Github: return detail::write_github(out, report, catalog, options);
    case Format::Junit: return detail::write_junit(out, report, catalog, options);
  }
}

std::function<std::optional<std::string>(const std::string& path)> read_source_from_disk(std::size_t max_bytes) {
  return [max_bytes](const std::string& path) -> std::optional<std::string> {
    std::error_code ec;
    const auto size = std::filesystem::file_size(path, ec);
    if (ec || size > max_bytes) return std::nullopt;
    std::ifstream in(path, std::ios::binary);
    if (!in) return std::nullopt;
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (in.bad()) return std::nullopt;
    for (std::size_t i = text.find('\r'); i != std::string::npos; i = text.find('\r', i + 1))
      if (i + 1 == text.size() || text[i + 1] != '\n') text[i] = '\n';  // CR-only lines, as the engine reads them
    return text;
  };
}

std::string default_information_uri() {
  const std::filesystem::path root(SYNCLINT_SOURCE_ROOT);
  std::error_code ec;
  if (root.empty() || !root.is_absolute() || !std::filesystem::is_directory(root / "docs", ec)) return {};
  return detail::directory_uri(root);
}

namespace detail {
std::string tool_version(const Options& options) {
  return options.tool_version.empty() ? std::string(SYNCLINT_VERSION) : options.tool_version;
}
}  // namespace detail

}  // namespace synclint::emit
