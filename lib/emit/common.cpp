#include <algorithm>
#include <cstdio>

#include "emit/detail.h"

namespace synclint::emit::detail {

// --- UTF-8 ---------------------------------------------------------------------------------------

CodePoint code_point_at(std::string_view text, std::size_t i) {
  const auto b0 = static_cast<unsigned char>(text[i]);
  if (b0 < 0x80) return {b0, i, 1, true};
  std::size_t need = 0;
  char32_t cp = 0;
  char32_t min = 0;
  if ((b0 & 0xE0) == 0xC0) {
    need = 1, cp = b0 & 0x1F, min = 0x80;
  } else if ((b0 & 0xF0) == 0xE0) {
    need = 2, cp = b0 & 0x0F, min = 0x800;
  } else if ((b0 & 0xF8) == 0xF0) {
    need = 3, cp = b0 & 0x07, min = 0x10000;
  }
  bool ok = need > 0;
  for (std::size_t k = 1; ok && k <= need; ++k) {
    if (i + k >= text.size()) {
      ok = false;
      break;
    }
    const auto b = static_cast<unsigned char>(text[i + k]);
    if ((b & 0xC0) != 0x80) ok = false;
    cp = (cp << 6) | (b & 0x3F);
  }
  if (ok && (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))) ok = false;
  if (ok) return {cp, i, need + 1, true};
  return {0xFFFD, i, 1, false};
}

std::vector<CodePoint> decode_utf8(std::string_view text) {
  std::vector<CodePoint> out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); i += out.back().size) out.push_back(code_point_at(text, i));
  return out;
}

void append_utf8(std::string& out, char32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

int display_width(char32_t cp) {
  struct Range {
    char32_t first, last;
  };
  static constexpr Range kZero[] = {
      {0x0300, 0x036F}, {0x0483, 0x0489}, {0x0591, 0x05BD}, {0x0610, 0x061A}, {0x064B, 0x065F},
      {0x0E31, 0x0E31}, {0x0E34, 0x0E3A}, {0x1AB0, 0x1AFF}, {0x1DC0, 0x1DFF}, {0x200B, 0x200F},
      {0x2028, 0x202E}, {0x2060, 0x2064}, {0x20D0, 0x20FF}, {0xFE00, 0xFE0F}, {0xFE20, 0xFE2F},
      {0xFEFF, 0xFEFF}, {0xE0100, 0xE01EF},
  };
  static constexpr Range kWide[] = {
      {0x1100, 0x115F},   {0x231A, 0x231B},   {0x2329, 0x232A},   {0x23E9, 0x23EC},   {0x23F0, 0x23F0},
      {0x23F3, 0x23F3},   {0x25FD, 0x25FE},   {0x2614, 0x2615},   {0x2648, 0x2653},   {0x267F, 0x267F},
      {0x2693, 0x2693},   {0x26A1, 0x26A1},   {0x26AA, 0x26AB},   {0x26BD, 0x26BE},   {0x26C4, 0x26C5},
      {0x26CE, 0x26CE},   {0x26D4, 0x26D4},   {0x26EA, 0x26EA},   {0x26F2, 0x26F3},   {0x26F5, 0x26F5},
      {0x26FA, 0x26FA},   {0x26FD, 0x26FD},   {0x2705, 0x2705},   {0x270A, 0x270B},   {0x2728, 0x2728},
      {0x274C, 0x274C},   {0x274E, 0x274E},   {0x2753, 0x2755},   {0x2757, 0x2757},   {0x2795, 0x2797},
      {0x27B0, 0x27B0},   {0x27BF, 0x27BF},   {0x2B1B, 0x2B1C},   {0x2B50, 0x2B50},   {0x2B55, 0x2B55},
      {0x2E80, 0x303E},   {0x3041, 0x33FF},   {0x3400, 0x4DBF},   {0x4E00, 0x9FFF},   {0xA000, 0xA4CF},
      {0xA960, 0xA97F},   {0xAC00, 0xD7A3},   {0xF900, 0xFAFF},   {0xFE10, 0xFE19},   {0xFE30, 0xFE6F},
      {0xFF00, 0xFF60},   {0xFFE0, 0xFFE6},   {0x16FE0, 0x16FE4}, {0x17000, 0x18CFF}, {0x1B000, 0x1B2FF},
      {0x1F004, 0x1F004}, {0x1F0CF, 0x1F0CF}, {0x1F18E, 0x1F18E}, {0x1F191, 0x1F19A}, {0x1F200, 0x1F251},
      {0x1F300, 0x1F64F}, {0x1F680, 0x1F6FF}, {0x1F7E0, 0x1F7EB}, {0x1F90C, 0x1F9FF}, {0x1FA70, 0x1FAFF},
      {0x20000, 0x2FFFD}, {0x30000, 0x3FFFD},
  };
  const auto in = [cp](const auto& table) {
    return std::any_of(std::begin(table), std::end(table), [cp](const Range& r) { return cp >= r.first && cp <= r.last; });
  };
  if (cp < 0x300) return 1;
  if (in(kZero)) return 0;
  if (in(kWide)) return 2;
  return 1;
}

std::string valid_utf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const CodePoint& cp : decode_utf8(text)) {
    if (cp.valid) {
      out.append(text.substr(cp.offset, cp.size));
    } else {
      append_utf8(out, 0xFFFD);
    }
  }
  return out;
}

std::string one_line(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const CodePoint& cp : decode_utf8(text)) {
    if (!cp.valid) {
      append_utf8(out, 0xFFFD);
    } else if (cp.value < 0x20 || cp.value == 0x7F || (cp.value >= 0x80 && cp.value < 0xA0)) {
      out += ' ';
    } else {
      out.append(text.substr(cp.offset, cp.size));
    }
  }
  return out;
}

// --- URIs --------------------------------------------------------------------------------------

std::string percent_encode_path(std::string_view path) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(path.size());
  for (char ch : path) {
    const auto c = static_cast<unsigned char>(ch);
    const bool unreserved = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
                            c == '.' || c == '_' || c == '~' || c == '/';
    if (unreserved) {
      out += ch;
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 0xF];
    }
  }
  return out;
}

std::string file_uri(const std::filesystem::path& absolute_file) {
  return "file://" + percent_encode_path(absolute_file.lexically_normal().generic_string());
}

std::string directory_uri(const std::filesystem::path& absolute_dir) {
  std::string uri = file_uri(absolute_dir);
  if (!uri.ends_with('/')) uri += '/';
  return uri;
}

// --- locations -----------------------------------------------------------------------------------

RegionFields region_fields(const SourceRange& r) {
  RegionFields out;
  if (r.begin.line == 0) return out;
  out.start_line = r.begin.line;
  if (r.begin.column > 0) out.start_column = r.begin.column;
  if (r.end.line >= r.begin.line) {
    out.end_line = r.end.line;
    if (out.start_column && r.end.column > 0 && (r.end.line > r.begin.line || r.end.column >= r.begin.column)) {
      out.end_column = r.end.column;
    }
  }
  return out;
}

// --- source lines --------------------------------------------------------------------------------

const SourceCache::File* SourceCache::file(const std::string& path) {
  auto it = files_.find(path);
  if (it == files_.end()) {
    std::optional<File> loaded;
    if (options_.read_source) {
      if (auto text = options_.read_source(path)) {
        loaded.emplace();
        loaded->text = std::move(*text);
        loaded->starts.push_back(0);
        for (std::size_t i = 0; i < loaded->text.size(); ++i) {
          if (loaded->text[i] == '\n') loaded->starts.push_back(i + 1);
        }
      }
    }
    it = files_.emplace(path, std::move(loaded)).first;
  }
  return it->second ? &*it->second : nullptr;
}

std::optional<std::uint32_t> SourceCache::line_count(const std::string& path) {
  const File* f = file(path);
  if (f == nullptr) return std::nullopt;
  // A final line ending does not start another line.
  const bool trailing = f->starts.size() > 1 && f->starts.back() == f->text.size();
  return static_cast<std::uint32_t>(f->starts.size() - (trailing ? 1 : 0));
}

std::optional<std::string_view> SourceCache::line(const std::string& path, std::uint32_t line) {
  const auto count = line_count(path);
  if (!count || line == 0 || line > *count) return std::nullopt;
  const File* f = file(path);
  const std::size_t begin = f->starts[line - 1];
  std::size_t end = line < f->starts.size() ? f->starts[line] - 1 : f->text.size();
  std::string_view text(f->text.data() + begin, end - begin);
  if (text.ends_with('\r')) text.remove_suffix(1);
  return text;
}

// --- wording -------------------------------------------------------------------------------------

std::string group_thousands(std::uint64_t n) {
  std::string digits = std::to_string(n);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

namespace {
std::string printf_double(const char* format, double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, format, value);
  return buffer;
}

std::string milliseconds(double ms) {
  return printf_double(ms > 0 && ms < 0.05 ? "%.3f ms" : "%.1f ms", ms);
}
}  // namespace

std::string cost_text(const SiteCost& cost) {
  const double percent = cost.share_of_run * 100.0;
  return group_thousands(cost.calls) + (cost.calls == 1 ? " call" : " calls") + ", host blocked " +
         milliseconds(cost.host_blocked_ms) + ", GPU idle " + milliseconds(cost.gpu_idle_ms) + ", predicted saving " +
         milliseconds(cost.predicted_saving_ms) + " (" +
         (percent > 0 && percent < 0.05 ? std::string("<0.1%") : printf_double("%.1f%%", percent)) + " of run)";
}

std::string location_text(const std::string& path, std::uint32_t line, std::uint32_t column) {
  std::string out = path;
  if (line > 0) {
    out += ':' + std::to_string(line);
    if (column > 0) out += ':' + std::to_string(column);
  }
  return out;
}

std::string location_text(const SourceRange& range) {
  return location_text(range.path, range.begin.line, range.begin.column);
}

std::string location_text(const FileError& error) {
  return error.position ? location_text(error.path, error.position->line, error.position->column) : error.path;
}

std::string rule_tag(const Finding& finding) {
  return "[" + finding.rule_id + (finding.rule_name.empty() ? "" : " " + finding.rule_name) + "]";
}

std::string plural(std::size_t n, std::string_view one, std::string_view many) {
  return std::to_string(n) + " " + std::string(n == 1 ? one : many);
}

Counts count_severities(const Report& report) {
  Counts c;
  for (const Finding& f : report.findings) {
    switch (f.severity) {
      case Severity::Error: ++c.errors; break;
      case Severity::Warning: ++c.warnings; break;
      case Severity::Note: ++c.notes; break;
    }
  }
  return c;
}

std::string severity_breakdown(const Counts& counts) {
  std::string out;
  const auto add = [&out](std::size_t n, std::string_view one, std::string_view many) {
    if (n == 0) return;
    if (!out.empty()) out += ", ";
    out += plural(n, one, many);
  };
  add(counts.errors, "error", "errors");
  add(counts.warnings, "warning", "warnings");
  add(counts.notes, "note", "notes");
  return out;
}

std::optional<std::size_t> rule_index(const Catalog& catalog, std::string_view rule_id) {
  const auto& rules = catalog.rules();
  for (std::size_t i = 0; i < rules.size(); ++i) {
    if (rules[i].id == rule_id) return i;
  }
  return std::nullopt;
}

}  // namespace synclint::emit::detail
