#include "engine/workspace.h"

#include <algorithm>
#include <functional>
#include <set>
#include <thread>
#include <variant>

#include "core/catalog.h"
#include "core/suppressions.h"
#include "engine/cxx_workspace.h"
#include "engine/discover.h"
#include "engine/finish.h"
#include "engine/source.h"
#include "python/analyzer.h"
#include "python/project_cache.h"
#include "python/syntax.h"

namespace synclint::engine {
namespace fs = std::filesystem;

std::string workspace_key(const fs::path& path) {
  std::error_code ec;
  fs::path abs = fs::absolute(path, ec);
  return (ec ? path : abs).lexically_normal().generic_string();
}

void keep_freed_memory() { python::keep_freed_memory(); }

namespace {

// A source's text as the analysis sees it, or why it cannot be read.
struct Text {
  std::string text;
  std::optional<FileError> error;
  std::uint64_t version = 0;  // names the text (python::SourceFile::version)
};

// One configuration and the results of its project the last time it was analysed.
struct Project {
  std::shared_ptr<const Config> config;
  std::uint64_t inputs = 0;  // hash of the members' paths and texts at the last analysis
  bool complete = false;     // the analysis of those inputs ended (it was not stopped)
  struct FileFindings {
    std::string path;
    FindingList findings;  // null: deferred
    std::vector<FileError> errors;
    bool deferred = false;  // the findings are made when asked (ProjectCache::result_of, finish)
  };
  std::vector<FileFindings> results;
  std::vector<FileError> errors;  // of the whole project
  std::unique_ptr<python::ProjectCache> parsed;  // the members' parses, kept across analyses
  std::shared_ptr<Catalog> catalog;  // the builtin one with the configuration's APIs, for deferred findings
};

std::uint64_t mix(std::uint64_t seed, std::string_view bytes) {
  return seed ^ (std::hash<std::string_view>{}(bytes) + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2));
}

// Suppressions, then configuration, for one file's findings, in output order.
FindingList finish(python::FileResult& result, Language lang, const Config& config,
                   const Catalog& catalog) {
  std::vector<Finding> out = finish_findings(lang, result.path, std::move(result.findings), result.comments,
                                             /*report_unused=*/true, result.path, config, catalog);
  std::sort(out.begin(), out.end(), finding_less);
  return std::make_shared<const std::vector<Finding>>(std::move(out));
}

}  // namespace

struct Workspace::State {
  WorkspaceOptions options;
  std::map<std::string, Text> overlay;             // open buffers (never an error)
  std::uint64_t versions = 0;                      // of the texts, overlays and files read
  std::map<std::string, Text> disk;                // files read from disk, until told they changed
  std::optional<std::vector<Candidate>> walked;    // the workspace's files, walked once
  std::vector<FileError> walk_errors;
  std::map<std::string, std::shared_ptr<const Config>> config_by_dir;
  std::map<std::string, std::shared_ptr<const Config>> config_by_file;
  std::vector<ConfigProblem> config_problems;
  std::map<const Config*, Project> projects;  // one language per configuration while only Python has a front-end
  std::unique_ptr<CxxWorkspace> cxx;          // the open C++ sources' units

  unsigned jobs() const {
    if (options.jobs != 0) return options.jobs;
    const unsigned hw = std::thread::hardware_concurrency();
    return hw == 0 ? 1 : hw;
  }

  // The closest configuration above `dir`; a file that fails to load is reported and the defaults apply
  // below it until it is fixed.
  std::shared_ptr<const Config> config_for(const fs::path& dir) {
    const std::string key = dir.generic_string();
    if (auto it = config_by_dir.find(key); it != config_by_dir.end()) return it->second;
    const Catalog& catalog = Catalog::builtin();
    Config found;
    found.root = dir;
    bool done = false;
    std::error_code ec;
    for (fs::path folder = dir; !done; folder = folder.parent_path()) {
      for (const char* name : kConfigFileNames) {
        const fs::path candidate = folder / name;
        if (!fs::is_regular_file(candidate, ec)) continue;
        try {
          if (auto config = load_config_file(candidate, catalog)) {
            found = std::move(*config);
            done = true;
            break;
          }
        } catch (const ConfigError& e) {
          const std::string file_key = workspace_key(candidate);
          if (!config_by_file.count(file_key))
            config_problems.push_back({candidate, e.what()});
          found.root = folder;
          found.file = candidate;
          done = true;
          break;
        }
      }
      if (folder == folder.root_path() || !folder.has_parent_path() || folder.parent_path() == folder) break;
    }
    const std::string file_key = found.file ? workspace_key(*found.file) : "";
    auto& shared = config_by_file[file_key];
    if (!shared) shared = std::make_shared<const Config>(std::move(found));
    config_by_dir.emplace(key, shared);
    return shared;
  }

  const Text& text_of(const std::string& key) {
    auto it = disk.find(key);
    if (it != disk.end()) return it->second;
    Text t;
    t.version = ++versions;
    auto read = read_source(key, key, options.max_file_bytes);
    if (auto* s = std::get_if<std::string>(&read))
      t.text = std::move(*s);
    else
      t.error = std::get<FileError>(read);
    return disk.emplace(key, std::move(t)).first->second;
  }

  void walk() {
    walked.emplace();
    walk_errors.clear();
    if (options.root.empty()) return;
    ExcludeFn excluded = [&](const fs::path& path, bool) { return config_for(path.parent_path())->excluded(path); };
    Discovery d = discover({options.root.string()}, excluded);
    walked = std::move(d.files);
    walk_errors = std::move(d.errors);
  }
};

Workspace::Workspace(WorkspaceOptions options) : state_(std::make_unique<State>()) {
  if (!options.root.empty()) options.root = fs::path(workspace_key(options.root));
  state_->cxx = std::make_unique<CxxWorkspace>(
      CxxWorkspaceOptions{options.cxx, options.report_cold, options.cxx_ready});
  state_->options = std::move(options);
}

Workspace::~Workspace() = default;

const fs::path& Workspace::root() const { return state_->options.root; }

void Workspace::set_overlay(const fs::path& path, std::string text) {
  const std::string key = workspace_key(path);
  state_->overlay[key] = Text{std::move(text), std::nullopt, ++state_->versions};
}

void Workspace::clear_overlay(const fs::path& path) {
  const std::string key = workspace_key(path);
  state_->overlay.erase(key);
  if (language_of(key) == Language::Cxx) state_->cxx->forget(key);
}

void Workspace::analyze_unit(const fs::path& path) {
  State& s = *state_;
  const std::string key = workspace_key(path);
  if (language_of(key) != Language::Cxx || !frontend_available(Language::Cxx)) return;
  std::string text;
  if (auto it = s.overlay.find(key); it != s.overlay.end()) {
    text = it->second.text;
  } else {
    s.disk.erase(key);
    const Text& t = s.text_of(key);
    if (t.error) return;
    text = t.text;
  }
  s.cxx->request(key, std::move(text), s.config_for(fs::path(key).parent_path()));
}

void Workspace::file_changed(const fs::path& path) {
  const std::string key = workspace_key(path);
  state_->disk.erase(key);
  std::error_code ec;
  // A file that appeared or went away changes the walk.
  const bool known = state_->walked && std::any_of(state_->walked->begin(), state_->walked->end(), [&](const Candidate& c) {
                       return workspace_key(c.open_path) == key;
                     });
  if (known != fs::exists(path, ec)) state_->walked.reset();
}

void Workspace::reload() {
  state_->walked.reset();
  state_->disk.clear();
  state_->config_by_dir.clear();
  state_->config_by_file.clear();
  state_->config_problems.clear();
  state_->projects.clear();
}

FindingList Workspace::findings_of(const std::string& path) {
  for (auto& [key, project] : state_->projects) {
    // A project's results are in the order of its members, by path.
    auto it = std::lower_bound(project.results.begin(), project.results.end(), path,
                               [](const Project::FileFindings& f, const std::string& p) { return f.path < p; });
    if (it == project.results.end() || it->path != path) continue;
    if (it->deferred && project.parsed && project.catalog) {
      python::FileResult r = project.parsed->result_of(path);
      it->findings = finish(r, Language::Python, *project.config, *project.catalog);
      it->deferred = false;
    }
    return it->findings;
  }
  return nullptr;
}

WorkspaceResult Workspace::analyze(const std::function<bool()>& stop, const std::function<bool(const std::string&)>& wanted) {
  State& s = *state_;
  if (!s.walked) s.walk();
  WorkspaceResult out;
  out.errors = s.walk_errors;

  // The files: the walked ones and the open buffers (an open file outside the workspace is analysed
  // with them, under its own configuration).
  std::map<std::string, Language> files;
  for (const Candidate& c : *s.walked) files.emplace(workspace_key(c.open_path), c.language);
  for (const auto& [key, buffer] : s.overlay) {
    if (auto lang = language_of(key)) files.emplace(key, *lang);
  }

  struct Member {
    std::string key;
    const std::string* text;
    std::uint64_t version;
  };
  std::map<std::pair<const Config*, Language>, std::vector<Member>> groups;
  std::map<const Config*, std::shared_ptr<const Config>> configs;
  for (const auto& [key, lang] : files) {
    if (lang != Language::Python) {  // C++: analysed on open and save (analyze_unit), collected below
      if (!frontend_available(lang)) out.unsupported.push_back(key);
      continue;
    }
    auto overlaid = s.overlay.find(key);
    const Text& t = overlaid != s.overlay.end() ? overlaid->second : s.text_of(key);
    if (t.error) {
      out.errors.push_back(*t.error);
      continue;
    }
    auto config = s.config_for(fs::path(key).parent_path());
    configs[config.get()] = config;
    groups[{config.get(), lang}].push_back({key, &t.text, t.version});
  }
  std::map<const Config*, Project> kept;
  for (auto& [group, members] : groups) {
    const Config& config = *group.first;
    std::uint64_t inputs = static_cast<std::uint64_t>(group.second);
    for (const Member& m : members)
      inputs = mix(mix(inputs, m.key), std::string_view(reinterpret_cast<const char*>(&m.version), sizeof m.version));
    Project project;
    if (auto it = s.projects.find(&config); it != s.projects.end() && it->second.complete &&
                                                     it->second.inputs == inputs) {
      project = std::move(it->second);
    } else {
      if (it != s.projects.end()) project.parsed = std::move(it->second.parsed);
      if (!project.parsed) project.parsed = std::make_unique<python::ProjectCache>();
      project.config = configs[&config];
      project.inputs = inputs;
      project.catalog = std::make_shared<Catalog>(Catalog::builtin());
      Catalog& catalog = *project.catalog;
      python::Options analyzer_options;
      analyzer_options.catalog = &catalog;
      analyzer_options.hot_functions = default_hot_functions();
      for (const std::string& f : config.hot_functions.value) analyzer_options.hot_functions.push_back(f);
      analyzer_options.report_cold = s.options.report_cold;
      analyzer_options.jobs = s.jobs();
      analyzer_options.stop = stop;
      std::vector<python::SourceFile> sources;
      sources.reserve(members.size());
      for (const Member& m : members)  // the text only where the project does not hold that version
        sources.push_back({m.key, project.parsed->holds(m.key, m.version) ? std::string() : *m.text, m.version});
      try {
        apply_extra_apis(config, catalog);
        std::vector<char> same;
        std::vector<python::FileResult> results = project.parsed->analyze(sources, analyzer_options, &same, wanted);
        // A file whose result is the last analysis's takes its findings from then (same order of members).
        std::vector<Project::FileFindings>* before = it != s.projects.end() ? &it->second.results : nullptr;
        for (std::size_t i = 0; i < results.size(); ++i) {
          python::FileResult& r = results[i];
          if (same[i] == 1 && before && i < before->size() && (*before)[i].path == r.path) {
            project.results.push_back(std::move((*before)[i]));
            continue;
          }
          if (same[i] == 2) {  // made when asked (findings_of)
            project.results.push_back({r.path, nullptr, std::move(r.errors), true});
            continue;
          }
          if (same[i] == 1) r = project.parsed->result_of(r.path);
          project.results.push_back({r.path, finish(r, group.second, config, catalog), std::move(r.errors)});
        }
      } catch (const python::AnalysisStopped&) {
        // What the analyses made stays for the next one: the parses and walks, and the projects done.
        for (auto& [c, done] : kept) s.projects[c] = std::move(done);
        Project& left = s.projects[&config];
        left = Project{};
        left.parsed = std::move(project.parsed);
        WorkspaceResult stopped;
        stopped.stopped = true;
        return stopped;
      } catch (const ConfigError& e) {  // extra-sync-apis naming a rule or kind that does not exist
        project.results.clear();
        const std::filesystem::path file = config.file.value_or(config.root);
        const bool known = std::any_of(s.config_problems.begin(), s.config_problems.end(), [&](const ConfigProblem& p) {
          return p.file == file && p.message == e.what();
        });
        if (!known) s.config_problems.push_back({file, e.what()});
      } catch (const std::exception& e) {
        for (const Member& m : members)
          project.errors.push_back(FileError{m.key, std::string("internal error while analysing: ") + e.what(), true,
                                             std::nullopt});
      }
      project.complete = true;
    }
    for (const Project::FileFindings& r : project.results) {
      out.findings[r.path] = r.findings;
      out.errors.insert(out.errors.end(), r.errors.begin(), r.errors.end());
    }
    out.errors.insert(out.errors.end(), project.errors.begin(), project.errors.end());
    kept[&config] = std::move(project);
  }
  s.projects = std::move(kept);
  s.cxx->collect(out);
  out.config_problems = s.config_problems;
  return out;
}

}  // namespace synclint::engine
