#include "lsp/server.h"

#include <algorithm>
#include <sys/stat.h>

#include "core/config.h"
#include "core/cost_report.h"
#include "core/ranking.h"
#include "engine/discover.h"

namespace synclint::lsp {
namespace fs = std::filesystem;

namespace {

constexpr const char* kDefaultProbeReport = "synclint-probe.json";

bool is_config_file(const fs::path& p) {
  const std::string name = p.filename().string();
  return std::any_of(kConfigFileNames.begin(), kConfigFileNames.end(), [&](const char* n) { return name == n; });
}

// A result id for a list of diagnostics: equal lists, equal ids.
std::string result_id(const std::vector<Diagnostic>& items) {
  std::size_t h = items.size();
  for (const Diagnostic& d : items) {
    for (const std::string* s : {&d.code, &d.message, &d.code_href})
      h = h * 1000003u ^ std::hash<std::string>{}(*s);
    h = h * 31 + d.range.start.line * 7919u + d.range.start.character * 131u + d.range.end.line * 17u +
        d.range.end.character + static_cast<std::size_t>(d.severity);
  }
  return std::to_string(h);
}

}  // namespace

struct Server::Costs {
  fs::path file;
  std::optional<fs::file_time_type> mtime;  // of the file when read; nullopt: not there
  bool error_logged = false;
  std::optional<CostReport> report;
  // The report's sites matched to the files with findings, and each file's findings with their costs,
  // kept while its findings stay the same list.
  std::optional<CostIndex> index;
  std::map<std::string, std::pair<engine::FindingList, engine::FindingList>> joined;

  void set_report(std::optional<CostReport> r) {
    joined.clear();
    index.reset();
    report = std::move(r);
  }
};

std::string default_rules_base_url() { return SYNCLINT_RULES_BASE_URL; }

Server::Server(ServerCallbacks callbacks, unsigned jobs, engine::CxxOptions cxx)
    : callbacks_(std::move(callbacks)), jobs_(jobs), cxx_(std::move(cxx)), costs_(std::make_unique<Costs>()) {}

std::unique_ptr<engine::Workspace> Server::make_workspace() const {
  engine::WorkspaceOptions options;
  options.root = root_;
  options.jobs = jobs_;
  options.report_cold = settings_.report_cold.value_or(false);
  options.cxx = cxx_;
  options.cxx_ready = callbacks_.wake;
  return std::make_unique<engine::Workspace>(options);
}

Server::~Server() = default;

InitializeResult Server::initialize(const InitializeParams& params) {
  InitializeResult result;
  result.version = SYNCLINT_VERSION;
  const auto& offered = params.capabilities.position_encodings;
  for (PositionEncoding e : {PositionEncoding::Utf32, PositionEncoding::Utf8}) {
    if (std::find(offered.begin(), offered.end(), to_string(e)) != offered.end()) {
      encoding_ = e;
      break;
    }
  }
  result.encoding = encoding_;
  pull_ = params.capabilities.pull_diagnostics;
  result.pull_diagnostics = pull_;
  if (params.root_uri) {
    if (auto p = uri_to_path(*params.root_uri)) root_ = *p;
  }
  settings_ = params.settings;
  workspace_ = make_workspace();
  dirty_ = true;
  return result;
}

void Server::update_settings(const Settings& settings) {
  const bool cold_changed = settings.report_cold && settings.report_cold != settings_.report_cold;
  if (settings.probe_report) settings_.probe_report = settings.probe_report;
  if (settings.rules_base_url) settings_.rules_base_url = settings.rules_base_url;
  if (settings.report_cold) settings_.report_cold = settings.report_cold;
  if (cold_changed && workspace_) {
    workspace_ = make_workspace();
    for (const auto& [uri, doc] : documents_) {
      workspace_->set_overlay(path_of(uri), doc.text());
      workspace_->analyze_unit(path_of(uri));  // C++ units: parsed again with the new setting
    }
  }
  costs_->mtime.reset();
  costs_->set_report(std::nullopt);
  dirty_ = true;
}

std::string Server::path_of(const std::string& uri) const {
  auto p = uri_to_path(uri);
  return p ? engine::workspace_key(*p) : std::string();
}

void Server::did_open(const std::string& uri, std::int64_t version, std::string text) {
  const std::string path = path_of(uri);
  if (path.empty()) return;  // untitled: buffers and other schemes are not analysed
  const auto lang = engine::language_of(path);
  if (lang && !engine::frontend_available(*lang) && !cxx_logged_) {
    cxx_logged_ = true;
    callbacks_.log(3, "synclint: " + std::string(to_string(*lang)) +
                          " files are not analysed by the language server (use `synclint check`); " + path +
                          " and others like it get no diagnostics");
  }
  workspace_->set_overlay(path, text);
  documents_.insert_or_assign(uri, Document(std::move(text), version, encoding_));
  if (lang == Language::Cxx) workspace_->analyze_unit(path);
  dirty_ = true;
}

void Server::did_change(const std::string& uri, std::int64_t version, const std::vector<ContentChange>& changes) {
  auto it = documents_.find(uri);
  if (it == documents_.end())
    throw RequestError(ErrorCode::InvalidParams, "didChange for a document that is not open: " + uri);
  for (const ContentChange& c : changes) it->second.apply(c);
  it->second.set_version(version);
  changed_.insert(uri);  // the workspace gets the text when the analysis starts, once per burst
  dirty_ = true;
}

void Server::did_close(const std::string& uri) {
  if (documents_.erase(uri) == 0) return;
  changed_.erase(uri);
  const std::string path = path_of(uri);
  if (!path.empty()) {
    workspace_->clear_overlay(path);
    workspace_->file_changed(path);
  }
  // A closed document's diagnostics are cleared (the editor shows only open files').
  published_versions_.erase(uri);
  if (!pull_ && published_.erase(uri)) callbacks_.publish(uri, std::nullopt, {});
  dirty_ = true;
}

void Server::did_save(const std::string& uri) {
  const std::string path = path_of(uri);
  if (path.empty()) return;
  workspace_->file_changed(path);
  if (engine::language_of(path) == Language::Cxx) {
    // C++ is analysed on save, with the buffer as saved.
    if (auto it = documents_.find(uri); it != documents_.end()) {
      workspace_->set_overlay(path, it->second.text());
      changed_.erase(uri);
    }
    workspace_->analyze_unit(path);
    dirty_ = true;
  }
}

void Server::files_changed(const std::vector<FileEvent>& events) {
  for (const FileEvent& e : events) {
    auto p = uri_to_path(e.uri);
    if (!p) continue;
    const fs::path path(engine::workspace_key(*p));
    if (is_config_file(path))
      workspace_->reload();
    else
      workspace_->file_changed(path);
    if (path == costs_->file) costs_->mtime.reset(), costs_->set_report(std::nullopt);
  }
  dirty_ = true;
}

void Server::load_costs() {
  fs::path file = settings_.probe_report.value_or(kDefaultProbeReport);
  if (file.is_relative()) {
    if (root_.empty()) return;
    file = root_ / file;
  }
  std::error_code ec;
  const auto mtime = fs::last_write_time(file, ec);
  if (ec) {
    costs_->file = file;
    costs_->set_report(std::nullopt);
    costs_->mtime.reset();
    return;
  }
  if (costs_->file == file && costs_->mtime == mtime) return;
  costs_->file = file;
  costs_->mtime = mtime;
  try {
    costs_->set_report(read_cost_report(file));
    callbacks_.log(3, "synclint: probe report " + file.string() + " loaded (" +
                          std::to_string(costs_->report->sites.size()) + " sites)");
  } catch (const CostReportError& e) {
    costs_->set_report(std::nullopt);
    callbacks_.log(1, std::string("synclint: probe report not used: ") + e.what());
  }
}

void Server::analyze(const std::function<bool()>& superseded) {
  if (!workspace_) return;
  for (const std::string& uri : changed_) {
    auto it = documents_.find(uri);
    const std::string path = path_of(uri);
    if (it != documents_.end() && !path.empty()) workspace_->set_overlay(path, it->second.text());
  }
  changed_.clear();
  // The open documents' findings are made; the others' may be left until asked for (findings_in).
  std::set<std::string> open;
  for (const auto& [uri, doc] : documents_) open.insert(path_of(uri));
  engine::WorkspaceResult result =
      workspace_->analyze(superseded, [&](const std::string& path) { return open.count(path) != 0; });
  // Newer edits are waiting: the results are stale (the next analysis takes up what this one made).
  if (result.stopped || (superseded && superseded())) return;
  load_costs();
  if (costs_->report) cost_findings(result);
  if (!result.unsupported.empty() && !cxx_logged_) {
    cxx_logged_ = true;
    callbacks_.log(3, "synclint: C++ files are not analysed by the language server (use `synclint check`); " +
                          std::to_string(result.unsupported.size()) + " in the workspace get no diagnostics");
  }
  for (const std::string& line : result.log) callbacks_.log(3, line);
  result_ = std::move(result);
  dirty_ = false;
  publish_changes();
}

void Server::cost_findings(engine::WorkspaceResult& result) {
  // The costs of the probe report, as `check --costs` joins them (ranking.h), on the files whose findings
  // changed: the sites are matched to the files with findings again only when those files change.
  Costs& c = *costs_;
  for (auto& [path, findings] : result.findings)
    if (!findings) findings = workspace_->findings_of(path);
  std::vector<std::string> files;
  for (const auto& [path, findings] : result.findings)
    if (findings && !findings->empty()) files.push_back(path);
  if (!c.index || files != c.index->files()) {
    c.index.emplace(files, *c.report, std::vector<std::pair<std::string, std::string>>{});
    c.joined.clear();
  }
  std::erase_if(c.joined, [&](const auto& entry) { return !result.findings.count(entry.first); });
  for (auto& [path, findings] : result.findings) {
    auto& [source, costed] = c.joined[path];
    if (source != findings || !costed) {
      std::vector<Finding> list = findings ? *findings : std::vector<Finding>{};
      for (Finding& f : list) c.index->cost(f);
      std::sort(list.begin(), list.end(), finding_less);
      source = findings;
      costed = std::make_shared<const std::vector<Finding>>(std::move(list));
    }
    findings = costed;
  }
}

void Server::publish_changes() {
  // Open documents and configuration files with problems (or that had some).
  std::map<std::string, std::optional<std::int64_t>> targets;
  for (const auto& [uri, doc] : documents_) targets[uri] = doc.version();
  for (const auto& problem : result_.config_problems)
    targets.emplace(path_to_uri(engine::workspace_key(problem.file)), std::nullopt);
  for (const auto& [uri, items] : published_) targets.emplace(uri, std::nullopt);
  bool changed = false;
  for (const auto& [uri, version] : targets) {
    const std::string path = path_of(uri);
    std::vector<Diagnostic> items = diagnostics_for(path);
    // Unchanged diagnostics are sent again only for a document whose version moved (the client may
    // hold them for the older version).
    auto it = published_.find(uri);
    const auto seen = published_versions_.find(uri);
    const bool same_version = seen != published_versions_.end() && seen->second == version;
    const bool same_items = it != published_.end() && it->second == items;
    if (same_items && (same_version || !version)) continue;
    if (version) published_versions_[uri] = version;
    changed = changed || !same_items;
    if (!pull_) callbacks_.publish(uri, version, items);
    if (items.empty() && !documents_.count(uri))
      published_.erase(uri);
    else
      published_[uri] = std::move(items);
  }
  if (pull_ && changed && callbacks_.refresh) callbacks_.refresh();
}

DocumentDiagnosticReport Server::document_diagnostics(const std::string& uri, const std::string& previous) {
  if (dirty_) analyze();
  DocumentDiagnosticReport report;
  report.items = diagnostics_for(path_of(uri));
  report.result_id = result_id(report.items);
  if (!previous.empty() && previous == report.result_id) {
    report.unchanged = true;
    report.items.clear();
  }
  return report;
}

std::vector<WorkspaceDocumentReport> Server::workspace_diagnostics(const std::map<std::string, std::string>& previous) {
  if (dirty_) analyze();
  std::set<std::string> uris;
  for (const auto& [path, findings] : result_.findings) uris.insert(path_to_uri(path));
  for (const auto& problem : result_.config_problems) uris.insert(path_to_uri(engine::workspace_key(problem.file)));
  for (const FileError& e : result_.errors) uris.insert(path_to_uri(e.path));
  std::vector<WorkspaceDocumentReport> out;
  for (const std::string& uri : uris) {
    WorkspaceDocumentReport r;
    r.uri = uri;
    if (auto it = documents_.find(uri); it != documents_.end()) r.version = it->second.version();
    auto prev = previous.find(uri);
    r.report = document_diagnostics(uri, prev == previous.end() ? "" : prev->second);
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace synclint::lsp
