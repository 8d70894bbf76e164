#include "lsp/protocol.h"

#include <cctype>
#include <cstdio>
#include <map>
#include <tuple>

namespace synclint::lsp {
using nlohmann::json;

namespace {

// Are two diagnostics the same but for their range (one that moved)?
bool same_but_range(const Diagnostic& a, const Diagnostic& b) {
  if (a.related.size() != b.related.size()) return false;
  for (std::size_t i = 0; i < a.related.size(); ++i) {
    const auto& x = a.related[i];
    const auto& y = b.related[i];
    if (x.message != y.message || x.location.uri != y.location.uri || !(x.location.range == y.location.range))
      return false;
  }
  return a.severity == b.severity && a.code == b.code && a.code_href == b.code_href && a.source == b.source &&
         a.message == b.message;
}

}  // namespace

bool operator==(const Diagnostic& a, const Diagnostic& b) { return a.range == b.range && same_but_range(a, b); }

std::optional<std::string> uri_to_path(const std::string& uri) {
  constexpr std::string_view kScheme = "file://";
  if (uri.size() < kScheme.size() || uri.compare(0, kScheme.size(), kScheme) != 0) return std::nullopt;
  std::string rest = uri.substr(kScheme.size());
  // file://host/path: only an empty host or localhost name this machine.
  const std::size_t slash = rest.find('/');
  if (slash == std::string::npos) return std::nullopt;
  const std::string host = rest.substr(0, slash);
  if (!host.empty() && host != "localhost") return std::nullopt;
  rest = rest.substr(slash);
  std::string out;
  for (std::size_t i = 0; i < rest.size(); ++i) {
    if (rest[i] == '%' && i + 2 < rest.size() && std::isxdigit(static_cast<unsigned char>(rest[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(rest[i + 2]))) {
      out.push_back(static_cast<char>(std::stoi(rest.substr(i + 1, 2), nullptr, 16)));
      i += 2;
    } else {
      out.push_back(rest[i]);
    }
  }
  return out;
}

std::string path_to_uri(const std::string& path) {
  std::string out = "file://";
  for (unsigned char c : path) {
    if (std::isalnum(c) || c == '/' || c == '-' || c == '_' || c == '.' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      char buf[4];
      std::snprintf(buf, sizeof buf, "%%%02X", c);
      out += buf;
    }
  }
  return out;
}

std::string to_string(PositionEncoding e) {
  switch (e) {
    case PositionEncoding::Utf8: return "utf-8";
    case PositionEncoding::Utf32: return "utf-32";
    case PositionEncoding::Utf16: break;
  }
  return "utf-16";
}

namespace {

template <class T>
T get_or(const json& j, const char* name, T fallback) {
  if (!j.is_object()) return fallback;
  auto it = j.find(name);
  if (it == j.end() || it->is_null()) return fallback;
  try {
    return it->get<T>();
  } catch (const json::exception&) {
    throw RequestError(ErrorCode::InvalidParams, std::string("field '") + name + "' has the wrong type");
  }
}

// j[a][b]...: null when any step is missing.
const json& path(const json& j, std::initializer_list<const char*> keys) {
  static const json kNull;
  const json* at = &j;
  for (const char* k : keys) {
    if (!at->is_object()) return kNull;
    auto it = at->find(k);
    if (it == at->end()) return kNull;
    at = &*it;
  }
  return *at;
}

std::uint32_t non_negative(const json& j, const char* name) {
  if (!j.is_object() || !j.contains(name) || !j.at(name).is_number_integer() || j.at(name).get<std::int64_t>() < 0)
    throw RequestError(ErrorCode::InvalidParams, std::string("'") + name + "' must be a non-negative integer");
  const auto v = j.at(name).get<std::int64_t>();
  return v > 0xffffffffLL ? 0xffffffffu : static_cast<std::uint32_t>(v);
}

}  // namespace

void to_json(json& j, const Position& p) { j = json{{"line", p.line}, {"character", p.character}}; }
void from_json(const json& j, Position& p) {
  p.line = non_negative(j, "line");
  p.character = non_negative(j, "character");
}
void to_json(json& j, const Range& r) { j = json{{"start", r.start}, {"end", r.end}}; }
void from_json(const json& j, Range& r) {
  if (!j.is_object() || !j.contains("start") || !j.contains("end"))
    throw RequestError(ErrorCode::InvalidParams, "a range needs 'start' and 'end'");
  from_json(j.at("start"), r.start);
  from_json(j.at("end"), r.end);
}
void to_json(json& j, const Location& l) { j = json{{"uri", l.uri}, {"range", l.range}}; }
void to_json(json& j, const TextEdit& e) { j = json{{"range", e.range}, {"newText", e.new_text}}; }

void to_json(json& j, const Diagnostic& d) {
  j = json{{"range", d.range}, {"severity", static_cast<int>(d.severity)}, {"source", d.source},
           {"message", d.message}};
  if (!d.code.empty()) j["code"] = d.code;
  if (!d.code_href.empty()) j["codeDescription"] = json{{"href", d.code_href}};
  if (!d.related.empty()) {
    json related = json::array();
    for (const auto& r : d.related) related.push_back(json{{"location", r.location}, {"message", r.message}});
    j["relatedInformation"] = std::move(related);
  }
}

std::string dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

namespace {

// A range's text as dump() writes it (members by name), after its member name.
std::string range_member(const Range& r) {
  auto position = [](const Position& p) {
    return "{\"character\":" + std::to_string(p.character) + ",\"line\":" + std::to_string(p.line) + "}";
  };
  return "\"range\":{\"end\":" + position(r.end) + ",\"start\":" + position(r.start) + "}";
}

}  // namespace

std::string PublishTexts::notification(const std::string& uri, std::optional<std::int64_t> version,
                                       const std::vector<Diagnostic>& diagnostics) {
  // Diagnostics come sorted by position: one the last notification held is found at its index there, or
  // by its message and start among the others. One that only moved (a line typed above it) takes the text
  // it had with its range written again: found by its message and the columns and lines its range spans.
  auto& last = last_[uri];
  std::multimap<std::pair<std::string_view, Position>, std::size_t> by_start;
  using Shape = std::tuple<std::string_view, std::uint32_t, std::uint32_t, std::uint32_t>;
  std::multimap<Shape, std::size_t> by_shape;
  auto key = [](const Diagnostic& d) { return std::pair<std::string_view, Position>(d.message, d.range.start); };
  auto shape = [](const Diagnostic& d) {
    const Range& r = d.range;
    return Shape(d.message, r.start.character, r.end.line - r.start.line, r.end.character);
  };
  std::vector<std::pair<Diagnostic, std::string>> now;
  now.reserve(diagnostics.size());
  std::string list = "[";
  for (std::size_t i = 0; i < diagnostics.size(); ++i) {
    const Diagnostic& d = diagnostics[i];
    const std::string* text = nullptr;
    std::string moved;
    if (i < last.size() && last[i].first == d) {
      text = &last[i].second;
    } else {
      if (by_start.empty())
        for (std::size_t k = 0; k < last.size(); ++k) {
          by_start.emplace(key(last[k].first), k);
          by_shape.emplace(shape(last[k].first), k);
        }
      for (auto [it, end] = by_start.equal_range(key(d)); it != end && !text; ++it)
        if (last[it->second].first == d) text = &last[it->second].second;
      for (auto [it, end] = by_shape.equal_range(shape(d)); it != end && !text; ++it) {
        const auto& [was, was_text] = last[it->second];
        // Outside string values (whose quotes are escaped), `"range":` is that member's name only.
        const std::string old_range = range_member(was.range);
        const std::size_t at = was_text.find(old_range);
        if (!same_but_range(was, d) || at == std::string::npos) continue;
        moved = was_text;
        moved.replace(at, old_range.size(), range_member(d.range));
        text = &moved;
      }
    }
    if (text == &moved) now.emplace_back(d, std::move(moved));
    else now.emplace_back(d, text ? *text : dump(json(d)));
    if (i > 0) list += ',';
    list += now.back().second;
  }
  list += ']';
  // The members in the order a dump writes them (by name): jsonrpc, method, params; diagnostics, uri, version.
  std::string out = R"({"jsonrpc":"2.0","method":"textDocument/publishDiagnostics","params":{"diagnostics":)";
  out += list;
  out += ",\"uri\":";
  out += dump(json(uri));
  if (version) {
    out += ",\"version\":";
    out += std::to_string(*version);
  }
  out += "}}";
  last = std::move(now);
  if (last.empty()) last_.erase(uri);
  return out;
}

void from_json(const json& j, Diagnostic& d) {
  from_json(path(j, {"range"}), d.range);
  d.severity = static_cast<DiagnosticSeverity>(get_or<int>(j, "severity", 2));
  const json& code = path(j, {"code"});
  d.code = code.is_string() ? code.get<std::string>() : code.is_number() ? code.dump() : "";
  d.source = get_or<std::string>(j, "source", "");
  d.message = get_or<std::string>(j, "message", "");
  d.code_href = get_or<std::string>(path(j, {"codeDescription"}), "href", "");
}

void from_json(const json& j, Settings& s) {
  // Either the settings themselves or an object holding them under "synclint".
  const json& src = j.is_object() && j.contains("synclint") ? j.at("synclint") : j;
  if (!src.is_object()) return;
  if (src.contains("probeReport") && src.at("probeReport").is_string()) s.probe_report = src.at("probeReport");
  if (src.contains("rulesBaseUrl") && src.at("rulesBaseUrl").is_string()) s.rules_base_url = src.at("rulesBaseUrl");
  if (src.contains("all") && src.at("all").is_boolean()) s.report_cold = src.at("all").get<bool>();
}

void from_json(const json& j, InitializeParams& p) {
  if (!j.is_object()) throw RequestError(ErrorCode::InvalidParams, "initialize needs an object of parameters");
  const json& folders = path(j, {"workspaceFolders"});
  if (folders.is_array() && !folders.empty() && folders[0].is_object() && folders[0].contains("uri"))
    p.root_uri = get_or<std::string>(folders[0], "uri", "");
  else if (path(j, {"rootUri"}).is_string())
    p.root_uri = j.at("rootUri").get<std::string>();
  else if (path(j, {"rootPath"}).is_string())
    p.root_uri = path_to_uri(j.at("rootPath").get<std::string>());
  const json& caps = path(j, {"capabilities"});
  p.capabilities.pull_diagnostics = path(caps, {"textDocument", "diagnostic"}).is_object();
  p.capabilities.diagnostic_refresh = path(caps, {"workspace", "diagnostics", "refreshSupport"}) == true;
  p.capabilities.workspace_configuration = path(caps, {"workspace", "configuration"}) == true;
  p.capabilities.watched_files_registration =
      path(caps, {"workspace", "didChangeWatchedFiles", "dynamicRegistration"}) == true;
  p.capabilities.related_information = path(caps, {"textDocument", "publishDiagnostics", "relatedInformation"}) == true;
  const json& encodings = path(caps, {"general", "positionEncodings"});
  if (encodings.is_array())
    for (const json& e : encodings)
      if (e.is_string()) p.capabilities.position_encodings.push_back(e.get<std::string>());
  if (j.contains("initializationOptions")) from_json(j.at("initializationOptions"), p.settings);
}

void to_json(json& j, const InitializeResult& r) {
  json caps = {
      {"positionEncoding", to_string(r.encoding)},
      {"textDocumentSync", {{"openClose", true}, {"change", 2}, {"save", {{"includeText", false}}}}},
      {"hoverProvider", true},
      {"codeActionProvider", {{"codeActionKinds", json::array({"quickfix"})}}},
  };
  if (r.pull_diagnostics)
    caps["diagnosticProvider"] = {{"identifier", "synclint"}, {"interFileDependencies", true},
                                  {"workspaceDiagnostics", true}};
  j = json{{"capabilities", std::move(caps)}, {"serverInfo", {{"name", "synclint"}, {"version", r.version}}}};
}

void from_json(const json& j, ContentChange& c) {
  if (!j.is_object() || !j.contains("text") || !j.at("text").is_string())
    throw RequestError(ErrorCode::InvalidParams, "a content change needs 'text'");
  c.text = j.at("text").get<std::string>();
  if (j.contains("range") && !j.at("range").is_null()) {
    Range r;
    from_json(j.at("range"), r);
    c.range = r;
  }
}

void from_json(const json& j, FileEvent& e) {
  e.uri = get_or<std::string>(j, "uri", "");
  e.type = get_or<int>(j, "type", 2);
}

void to_json(json& j, const Hover& h) {
  j = json{{"contents", {{"kind", "markdown"}, {"value", h.markdown}}}, {"range", h.range}};
}

void to_json(json& j, const CodeAction& a) {
  json changes = json::object();
  for (const auto& [uri, edits] : a.changes) changes[uri] = edits;
  j = json{{"title", a.title}, {"kind", a.kind}, {"edit", {{"changes", std::move(changes)}}}};
  if (!a.diagnostics.empty()) j["diagnostics"] = a.diagnostics;
  if (a.preferred) j["isPreferred"] = true;
}

void to_json(json& j, const DocumentDiagnosticReport& r) {
  if (r.unchanged)
    j = json{{"kind", "unchanged"}, {"resultId", r.result_id}};
  else
    j = json{{"kind", "full"}, {"resultId", r.result_id}, {"items", r.items}};
}

void to_json(json& j, const WorkspaceDocumentReport& r) {
  to_json(j, r.report);
  j["uri"] = r.uri;
  j["version"] = r.version ? json(*r.version) : json(nullptr);
}

}  // namespace synclint::lsp
