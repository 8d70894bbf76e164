// The language server's core: open documents, settings, the workspace analysis and what the editor is
// shown (diagnostics, hovers, code actions). It works on protocol types and reports through callbacks;
// it never sees JSON-RPC (session.cpp binds it to the wire), like clangd's ClangdServer.
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/finding.h"
#include "engine/workspace.h"
#include "lsp/document.h"
#include "lsp/protocol.h"

namespace synclint::lsp {

struct ServerCallbacks {
  // Push diagnostics for one document (version: the document's, when open).
  std::function<void(const std::string& uri, std::optional<std::int64_t> version, const std::vector<Diagnostic>&)>
      publish;
  // A line for the client's log (window/logMessage); type 1 error .. 4 log.
  std::function<void(int type, const std::string& message)> log;
  // Pull mode: diagnostics of documents changed, ask the client to pull again.
  std::function<void()> refresh;
  // Set: C++ units are analysed off the message loop; called from that work when results arrive (the
  // session then calls results_arrived() on its own thread). Unset: they are analysed synchronously.
  std::function<void()> wake;
};

class Server {
 public:
  explicit Server(ServerCallbacks callbacks, unsigned jobs = 0, engine::CxxOptions cxx = {});
  ~Server();

  InitializeResult initialize(const InitializeParams& params);
  void update_settings(const Settings& settings);

  void did_open(const std::string& uri, std::int64_t version, std::string text);
  // Throws RequestError(InvalidParams) for a document that is not open.
  void did_change(const std::string& uri, std::int64_t version, const std::vector<ContentChange>& changes);
  void did_close(const std::string& uri);
  void did_save(const std::string& uri);
  void files_changed(const std::vector<FileEvent>& events);

  // Something changed since the last analysis.
  bool dirty() const { return dirty_; }
  // Background C++ analysis has results: publish them at the next analyze().
  void results_arrived() { dirty_ = true; }
  // Analyses the workspace and publishes what changed. `superseded` is asked between the rounds of the
  // Python analysis and once it is done: true ends it, or drops its results (newer edits are waiting), and
  // leaves the server dirty.
  void analyze(const std::function<bool()>& superseded = {});

  std::optional<Hover> hover(const std::string& uri, Position position);
  std::vector<CodeAction> code_actions(const std::string& uri, Range range);
  DocumentDiagnosticReport document_diagnostics(const std::string& uri, const std::string& previous_result_id);
  std::vector<WorkspaceDocumentReport> workspace_diagnostics(const std::map<std::string, std::string>& previous);

  bool is_open(const std::string& uri) const { return documents_.count(uri) != 0; }

 private:
  friend struct ServerAccess;
  // diagnostics.cpp
  std::vector<Diagnostic> diagnostics_for(const std::string& path);
  std::vector<Diagnostic> config_diagnostics(const std::string& path) const;
  Range range_of(const SourceRange& range) const;
  std::string rule_href(const std::string& rule_id) const;
  // The findings of the last analysis in a file (made now where the analysis left them), and at a
  // position of a document.
  const std::vector<Finding>& findings_in(const std::string& path);
  std::vector<const Finding*> findings_at(const std::string& path, Range range);
  void load_costs();
  void cost_findings(engine::WorkspaceResult& result);
  void publish_changes();
  std::string path_of(const std::string& uri) const;
  std::unique_ptr<engine::Workspace> make_workspace() const;

  ServerCallbacks callbacks_;
  unsigned jobs_;
  engine::CxxOptions cxx_;
  PositionEncoding encoding_ = PositionEncoding::Utf16;
  bool pull_ = false;
  std::filesystem::path root_;
  Settings settings_;
  std::unique_ptr<engine::Workspace> workspace_;
  std::map<std::string, Document> documents_;  // by uri
  std::set<std::string> changed_;              // documents edited since the last analysis
  engine::WorkspaceResult result_;             // of the last analysis, costs joined
  std::map<std::string, std::vector<Diagnostic>> published_;  // by uri
  std::map<std::string, std::optional<std::int64_t>> published_versions_;
  bool dirty_ = true;
  bool cxx_logged_ = false;
  // The probe report: its path, its modification time when read, the sites.
  struct Costs;
  std::unique_ptr<Costs> costs_;
};

// The rule pages' base URL when no setting gives one (the docs/rules folder of the source tree this
// binary was built from).
std::string default_rules_base_url();

}  // namespace synclint::lsp
