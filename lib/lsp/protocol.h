// LSP 3.17 types the server uses, and their conversion to and from JSON (protocol.cpp, the one place
// where they meet nlohmann::json). The server core works on these types only.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace synclint::lsp {

// JSON-RPC and LSP error codes.
enum class ErrorCode : int {
  ParseError = -32700,
  InvalidRequest = -32600,
  MethodNotFound = -32601,
  InvalidParams = -32602,
  InternalError = -32603,
  ServerNotInitialized = -32002,
  RequestFailed = -32803,
  RequestCancelled = -32800,
};

// A request that cannot be answered: becomes a JSON-RPC error response.
class RequestError : public std::runtime_error {
 public:
  RequestError(ErrorCode code, const std::string& message) : std::runtime_error(message), code(code) {}
  ErrorCode code;
};

// How `character` counts: the client and server agree on it in initialize (UTF-16 unless both say otherwise).
enum class PositionEncoding { Utf8, Utf16, Utf32 };

struct Position {
  std::uint32_t line = 0;       // 0-based
  std::uint32_t character = 0;  // 0-based, in the negotiated encoding
  friend auto operator<=>(const Position&, const Position&) = default;
};

struct Range {
  Position start;
  Position end;
  friend bool operator==(const Range&, const Range&) = default;
};

struct Location {
  std::string uri;
  Range range;
};

struct TextEdit {
  Range range;
  std::string new_text;
};

enum class DiagnosticSeverity : int { Error = 1, Warning = 2, Information = 3, Hint = 4 };

struct DiagnosticRelated {
  Location location;
  std::string message;
};

struct Diagnostic {
  Range range;
  DiagnosticSeverity severity = DiagnosticSeverity::Warning;
  std::string code;          // rule id; empty (left out) for a file's syntax or read error
  std::string code_href;     // codeDescription.href; empty: left out
  std::string source = "synclint";
  std::string message;
  std::vector<DiagnosticRelated> related;
  friend bool operator==(const Diagnostic& a, const Diagnostic& b);
};

// The server's own settings (initializationOptions, workspace/configuration section "synclint",
// didChangeConfiguration's settings.synclint). Unset fields keep their current value.
struct Settings {
  std::optional<std::string> probe_report;    // probeReport: path, relative to the workspace root
  std::optional<std::string> rules_base_url;  // rulesBaseUrl: codeDescription.href = base + "SYNCnnn.md"
  std::optional<bool> report_cold;            // all: also report syncs in code that runs once
};

struct ClientCapabilities {
  bool pull_diagnostics = false;        // textDocument.diagnostic
  bool diagnostic_refresh = false;      // workspace.diagnostics.refreshSupport
  bool workspace_configuration = false; // workspace.configuration
  bool watched_files_registration = false;  // workspace.didChangeWatchedFiles.dynamicRegistration
  bool related_information = false;     // textDocument.publishDiagnostics.relatedInformation
  std::vector<std::string> position_encodings;  // general.positionEncodings
};

struct InitializeParams {
  std::optional<std::string> root_uri;  // workspaceFolders[0], rootUri or rootPath
  ClientCapabilities capabilities;
  Settings settings;                    // initializationOptions
};

struct InitializeResult {
  PositionEncoding encoding = PositionEncoding::Utf16;
  bool pull_diagnostics = false;
  std::string version;
};

struct ContentChange {
  std::optional<Range> range;  // none: the whole text
  std::string text;
};

struct FileEvent {
  std::string uri;
  int type = 2;  // 1 created, 2 changed, 3 deleted
};

struct Hover {
  std::string markdown;
  Range range;
};

struct CodeAction {
  std::string title;
  std::string kind;  // "quickfix"
  std::vector<Diagnostic> diagnostics;
  std::map<std::string, std::vector<TextEdit>> changes;  // uri -> edits
  bool preferred = false;
};

struct DocumentDiagnosticReport {
  std::string result_id;
  bool unchanged = false;  // the client's previousResultId is still current: no items sent
  std::vector<Diagnostic> items;
};

struct WorkspaceDocumentReport {
  std::string uri;
  std::optional<std::int64_t> version;
  DocumentDiagnosticReport report;
};

// file:// URIs and paths. Non-file URIs give nullopt.
std::optional<std::string> uri_to_path(const std::string& uri);
std::string path_to_uri(const std::string& path);

std::string to_string(PositionEncoding e);  // "utf-8", "utf-16", "utf-32"

// --- JSON ----------------------------------------------------------------------------------------
// from_json throws RequestError(InvalidParams) naming the missing or mistyped field.

void to_json(nlohmann::json& j, const Position& p);
void from_json(const nlohmann::json& j, Position& p);
void to_json(nlohmann::json& j, const Range& r);
void from_json(const nlohmann::json& j, Range& r);
void to_json(nlohmann::json& j, const Location& l);
void to_json(nlohmann::json& j, const TextEdit& e);
void to_json(nlohmann::json& j, const Diagnostic& d);
void from_json(const nlohmann::json& j, Diagnostic& d);
void from_json(const nlohmann::json& j, Settings& s);
void from_json(const nlohmann::json& j, InitializeParams& p);
void to_json(nlohmann::json& j, const InitializeResult& r);
void from_json(const nlohmann::json& j, ContentChange& c);
void from_json(const nlohmann::json& j, FileEvent& e);
void to_json(nlohmann::json& j, const Hover& h);
void to_json(nlohmann::json& j, const CodeAction& a);
void to_json(nlohmann::json& j, const DocumentDiagnosticReport& r);
void to_json(nlohmann::json& j, const WorkspaceDocumentReport& r);

// The JSON text of textDocument/publishDiagnostics notifications, as a dump of the whole message gives it,
// with the text of each diagnostic the last notification for the same document also held taken from there
// (an edit usually leaves most of a document's diagnostics as they were).
class PublishTexts {
 public:
  std::string notification(const std::string& uri, std::optional<std::int64_t> version,
                           const std::vector<Diagnostic>& diagnostics);

 private:
  std::map<std::string, std::vector<std::pair<Diagnostic, std::string>>> last_;  // by uri
};

// The text of a JSON value as Transport::write writes it (no indentation, invalid UTF-8 replaced).
std::string dump(const nlohmann::json& j);

// A required member of `params` (RequestError(InvalidParams) when missing or of the wrong type).
template <class T>
T param(const nlohmann::json& params, const char* name) {
  if (!params.is_object() || !params.contains(name))
    throw RequestError(ErrorCode::InvalidParams, std::string("missing parameter '") + name + "'");
  try {
    return params.at(name).get<T>();
  } catch (const nlohmann::json::exception&) {
    throw RequestError(ErrorCode::InvalidParams, std::string("parameter '") + name + "' has the wrong type");
  }
}

}  // namespace synclint::lsp
