// Text output, clang/ruff style: "path:line:col: warning: message [SYNC001 tensor-item]", the source
// line with a caret under the range, notes for related locations, the fix and the measured cost.
#include <algorithm>
#include <cstdio>
#include <limits>
#include <map>
#include <unordered_map>

#include "core/compile_error.h"
#include "emit/detail.h"

namespace synclint::emit::detail {

namespace {

constexpr std::size_t kTabStop = 8;
constexpr std::size_t kContextBeforeMarker = 60;  // cells kept before the marker when a line is cut
constexpr std::string_view kCut = "...";

// The cells of a line one at a time: each code point with the columns a terminal gives it (tabs to the next
// tab stop, U+FFFD for control characters and invalid UTF-8).
class Cells {
 public:
  // From a cell boundary of `line`: byte `at`, display column `column`.
  Cells(std::string_view line, std::size_t at, std::size_t column) : line_(line), at_(at), column_(column) {}
  bool more() const { return at_ < line_.size(); }
  std::size_t at() const { return at_; }
  // The next cell's text (into `text` unless null) and width, from display column column().
  std::size_t next(std::string* text) {
    const CodePoint cp = code_point_at(line_, at_);
    at_ += cp.size;
    std::size_t width = 0;
    if (cp.valid && cp.value == '\t') {
      width = kTabStop - column_ % kTabStop;
      if (text) text->append(width, ' ');
    } else if (!cp.valid || cp.value < 0x20 || cp.value == 0x7F || (cp.value >= 0x80 && cp.value < 0xA0)) {
      width = 1;
      if (text) append_utf8(*text, 0xFFFD);
    } else {
      width = static_cast<std::size_t>(display_width(cp.value));
      if (text) text->append(line_.substr(cp.offset, cp.size));
    }
    column_ += width;
    return width;
  }
  std::size_t column() const { return column_; }

 private:
  std::string_view line_;
  std::size_t at_;
  std::size_t column_;
};

}  // namespace

Snippet render_snippet(std::string_view line, std::uint32_t first_column, std::optional<std::uint32_t> end_column,
                       std::size_t max_width, SnippetStart* start) {
  // Cells [first, last) are marked (0-based); first == n (the number of cells) marks the position just
  // past the line's end. Reading stops once the marker's cell is reached and the line is known to be
  // wider than max_width, or at the end of the line (then n is known).
  const std::size_t wanted_first = first_column > 0 ? first_column - 1 : 0;
  SnippetStart from;  // where reading begins: the line's start, or `start` when it lies at or before the marker
  if (start && start->cell <= wanted_first && start->byte <= line.size()) from = *start;
  std::size_t count = from.cell, marker_at = 0;
  bool ended = false, wide = true;
  for (Cells cells(line, from.byte, from.column);; ++count) {
    if (count == wanted_first) marker_at = cells.column();
    if (!cells.more()) {
      ended = true;
      if (count < wanted_first) marker_at = cells.column();
      wide = cells.column() > max_width;
      break;
    }
    if (count >= wanted_first && cells.column() > max_width) break;
    cells.next(nullptr);
  }
  const std::size_t first = ended ? std::min(wanted_first, count) : wanted_first;
  std::size_t last = end_column ? (*end_column > 0 ? *end_column - 1 : 0) : std::numeric_limits<std::size_t>::max();
  if (ended) last = std::min(last, count);
  if (last <= first) last = first + 1;

  // The window of cells shown: all of them unless the line is wider than max_width.
  const std::size_t window_start = wide && marker_at > kContextBeforeMarker ? marker_at - kContextBeforeMarker : 0;
  Snippet out;
  if (from.column > window_start) from = SnippetStart{};
  Cells cells(line, from.byte, from.column);
  std::size_t i = from.cell;
  for (; cells.more() && cells.column() < window_start; ++i) cells.next(nullptr);
  if (start) *start = SnippetStart{i, cells.at(), cells.column()};
  const std::size_t from_column = cells.column();
  if (i > 0) {
    out.source += kCut;
    out.marker.append(kCut.size(), ' ');
  }
  bool placed = false;
  for (; cells.more(); ++i) {
    std::string text;
    const std::size_t w = cells.next(&text);
    if (wide && cells.column() - from_column > max_width) {
      out.source += kCut;
      break;
    }
    out.source += text;
    if (i >= first && i < last) {
      if (!placed && w > 0) {
        out.marker += '^';
        out.marker.append(w - 1, '~');
        placed = true;
      } else {
        out.marker.append(w, placed ? '~' : ' ');
      }
    } else {
      out.marker.append(w, ' ');
    }
  }
  if (!placed) out.marker += '^';
  while (!out.marker.empty() && out.marker.back() == ' ') out.marker.pop_back();
  return out;
}

namespace {

struct Palette {
  bool on = false;
  std::string wrap(std::string_view code, std::string_view text) const {
    if (!on) return std::string(text);
    return "\x1b[" + std::string(code) + "m" + std::string(text) + "\x1b[0m";
  }
  std::string bold(std::string_view t) const { return wrap("1", t); }
  std::string severity(std::string_view word, Severity s) const {
    switch (s) {
      case Severity::Error: return wrap("1;31", std::string(word) + ":");
      case Severity::Warning: return wrap("1;35", std::string(word) + ":");
      case Severity::Note: return wrap("1;36", std::string(word) + ":");
    }
    return std::string(word) + ":";
  }
  std::string marker(std::string_view t) const { return wrap("1;32", t); }
  std::string label(std::string_view t) const { return wrap("1;34", t); }
  std::string gutter(std::string_view t) const { return wrap("34", t); }
};

class TextWriter {
 public:
  TextWriter(std::ostream& out, const Report& report, const Catalog& catalog, const Options& options)
      : out_(out), report_(report), catalog_(catalog), options_(options), sources_(options) {
    palette_.on = options.color;
  }

  void write() {
    if (options_.statistics) {
      statistics();
    } else {
      for (const Finding& f : report_.findings) finding(f);
    }
    for (const FileError& e : report_.errors) {
      out_ << palette_.bold(one_line(location_text(e)) + ":") << ' '
           << palette_.severity(shown_as_error(e) ? "error" : "warning",
                             shown_as_error(e) ? Severity::Error : Severity::Warning) << ' '
           << one_line(std::string(shown_message(e))) << '\n';
    }
    if (report_.has_costs && !report_.missed_by_static.empty()) missed();
    summary();
  }

 private:
  void header(const SourceRange& range, std::string_view word, Severity severity, const std::string& message,
              const std::string& tag) {
    out_ << palette_.bold(one_line(location_text(range)) + ":") << ' ' << palette_.severity(word, severity) << ' '
         << palette_.bold(one_line(message));
    if (!tag.empty()) out_ << ' ' << tag;
    out_ << '\n';
  }

  void snippet(const SourceRange& range) {
    if (!options_.show_source || range.begin.line == 0) return;
    const auto line = sources_.line(range.path, range.begin.line);
    if (!line) return;
    std::optional<std::uint32_t> end;
    if (range.end.line == range.begin.line) end = range.end.column;
    const Snippet s = render_snippet(*line, range.begin.column, end, 200, &snippet_starts_[line->data()]);
    std::string number = std::to_string(range.begin.line);
    if (number.size() < 5) number.insert(0, 5 - number.size(), ' ');
    const std::string blank(number.size(), ' ');
    out_ << palette_.gutter(number + " |") << (s.source.empty() ? "" : " ") << s.source << '\n';
    const std::size_t indent = s.marker.find_first_not_of(' ');
    out_ << palette_.gutter(blank + " |") << ' ' << s.marker.substr(0, indent) << palette_.marker(s.marker.substr(indent))
         << '\n';
  }

  // "  label: text", continuation lines of a multi-line text indented under the text.
  void labelled(std::string_view label, std::string_view text) {
    const std::string indent(label.size() + 4, ' ');
    out_ << "  " << palette_.label(std::string(label) + ":") << ' ';
    std::size_t start = 0;
    while (true) {
      const std::size_t nl = text.find('\n', start);
      out_ << one_line(text.substr(start, nl == std::string_view::npos ? std::string_view::npos : nl - start)) << '\n';
      if (nl == std::string_view::npos) break;
      start = nl + 1;
      out_ << indent;
    }
  }

  void finding(const Finding& f) {
    header(f.range, to_string(f.severity), f.severity, f.message, rule_tag(f));
    snippet(f.range);
    for (const RelatedLocation& r : f.related) {
      header(r.range, "note", Severity::Note, r.message, "");
      snippet(r.range);
    }
    if (!f.fix.empty()) labelled("fix", f.fix);
    if (f.cost) {
      labelled("cost", cost_text(*f.cost));
    } else if (report_.has_costs) {
      labelled("cost", "never ran under the probe");
    }
    if (options_.show_source) out_ << '\n';
  }

  void missed() {
    out_ << palette_.bold("Runtime synchronizations missed by static analysis:") << '\n';
    for (const RuntimeSite& site : report_.missed_by_static) {
      out_ << "  " << palette_.bold(one_line(location_text(site.range)) + ":") << ' ' << one_line(site.api);
      if (!site.function.empty()) out_ << " in " << one_line(site.function);
      out_ << ": " << cost_text(site.cost) << '\n';
    }
    if (options_.show_source) out_ << '\n';
  }

  // One row per rule: count, id, name, [predicted saving], summary; most frequent first.
  void statistics() {
    struct Row {
      std::string id, name;
      std::size_t count = 0;
      double saving_ms = 0;
    };
    std::map<std::string, Row> rows;
    for (const Finding& f : report_.findings) {
      Row& row = rows[f.rule_id];
      row.id = f.rule_id;
      row.name = f.rule_name;
      ++row.count;
      if (f.cost) row.saving_ms += f.cost->predicted_saving_ms;
    }
    std::vector<Row> sorted;
    for (auto& [id, row] : rows) sorted.push_back(std::move(row));
    std::stable_sort(sorted.begin(), sorted.end(), [](const Row& a, const Row& b) { return a.count > b.count; });
    std::size_t count_w = 0, id_w = 0, name_w = 0, saving_w = 0;
    std::vector<std::string> savings;
    for (const Row& r : sorted) {
      count_w = std::max(count_w, std::to_string(r.count).size());
      id_w = std::max(id_w, r.id.size());
      name_w = std::max(name_w, r.name.size());
      char buffer[48];
      std::snprintf(buffer, sizeof buffer, "%.1f ms", r.saving_ms);
      savings.emplace_back(buffer);
      saving_w = std::max(saving_w, savings.back().size());
    }
    const auto pad = [](std::string s, std::size_t w, bool right) {
      if (s.size() < w) s.insert(right ? 0 : s.size(), w - s.size(), ' ');
      return s;
    };
    for (std::size_t i = 0; i < sorted.size(); ++i) {
      const Row& r = sorted[i];
      std::string line = pad(std::to_string(r.count), count_w, true) + "  " + pad(r.id, id_w, false) + "  " +
                         pad(r.name, name_w, false);
      if (report_.has_costs) line += "  " + pad(savings[i], saving_w, true);
      if (const Rule* rule = catalog_.find(r.id)) line += "  " + rule->summary;
      while (!line.empty() && line.back() == ' ') line.pop_back();
      out_ << one_line(line) << '\n';
    }
  }

  void summary() {
    const Counts counts = count_severities(report_);
    const std::string files = plural(report_.files_checked, "file", "files");
    std::string line;
    if (counts.total() > 0) {
      line = "Found " + plural(counts.total(), "finding", "findings") + " (" + severity_breakdown(counts) + ") in " + files;
    } else if (report_.errors.empty()) {
      line = "All checked: no findings in " + files;
    } else {
      line = "No findings in " + files;
    }
    if (!report_.errors.empty()) line += "; " + plural(report_.errors.size(), "error", "errors");
    out_ << line << ".\n";
  }

  std::ostream& out_;
  const Report& report_;
  const Catalog& catalog_;
  const Options& options_;
  SourceCache sources_;
  std::unordered_map<const char*, SnippetStart> snippet_starts_;  // by line (their text lives in sources_)
  Palette palette_;
};

}  // namespace

void write_text(std::ostream& out, const Report& report, const Catalog& catalog, const Options& options) {
  TextWriter(out, report, catalog, options).write();
}

}  // namespace synclint::emit::detail
