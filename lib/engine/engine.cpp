#include "engine/engine.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <variant>

#include "core/catalog.h"
#include "core/config.h"
#include "core/cost_report.h"
#include "core/parallel.h"
#include "core/ranking.h"
#include "core/suggest.h"
#include "core/suppressions.h"
#include "core/file_result.h"
#include "engine/cxx_frontend.h"
#include "engine/discover.h"
#include "engine/finish.h"
#include "engine/source.h"
#include "python/analyzer.h"

namespace synclint::engine {
namespace fs = std::filesystem;

namespace {

unsigned effective_jobs(unsigned jobs) {
  if (jobs != 0) return jobs;
  const unsigned hw = std::thread::hardware_concurrency();
  return hw == 0 ? 1 : hw;
}

// A rule selector on the command line: an id, an id prefix ("SYNC00") or a rule name.
void validate_selectors(const std::vector<std::string>& selectors, const char* option, const Catalog& catalog) {
  std::vector<std::string> known;
  for (const Rule& r : catalog.rules()) {
    known.push_back(r.id);
    known.push_back(r.name);
  }
  for (const std::string& s : selectors) {
    const bool ok = catalog.find(s) != nullptr ||
                    std::any_of(catalog.rules().begin(), catalog.rules().end(),
                                [&](const Rule& r) { return !s.empty() && r.id.starts_with(s); });
    if (!ok) throw ConfigError(std::string(option) + ": unknown rule '" + s + "'" + did_you_mean(s, known));
  }
}

// The configuration of each folder, each file read once; files sharing a configuration share one object.
class ConfigResolver {
 public:
  ConfigResolver(const CheckOptions& options, const Catalog& catalog) : options_(options), catalog_(catalog) {
    if (options.select) validate_selectors(*options.select, "--select", catalog);
    validate_selectors(options.ignore, "--ignore", catalog);
    if (options.config_file) {
      std::error_code ec;
      if (!fs::is_regular_file(*options.config_file, ec))
        throw ConfigError(options.config_file->string() + ": no such configuration file");
      std::optional<Config> loaded = load_config_file(*options.config_file, catalog);
      if (!loaded) {
        Config fallback;
        fallback.root = fs::absolute(*options.config_file, ec).parent_path();
        fallback.file = *options.config_file;
        loaded = std::move(fallback);
      }
      fixed_ = adopt(std::move(*loaded));
    }
  }

  std::shared_ptr<const Config> for_dir(const fs::path& dir) {
    if (fixed_) return fixed_;
    const std::string key = dir.generic_string();
    if (auto it = by_dir_.find(key); it != by_dir_.end()) return it->second;
    // A folder without a configuration file of its own finds what its parent found: that of a resolved
    // parent, without looking up every folder above again.
    if (dir.is_absolute() && dir.has_filename() && dir == dir.lexically_normal()) {
      auto parent = by_dir_.find(dir.parent_path().generic_string());
      std::error_code ec;
      if (parent != by_dir_.end() && std::none_of(kConfigFileNames.begin(), kConfigFileNames.end(), [&](const char* name) {
            return fs::is_regular_file(dir / name, ec);
          })) {
        by_dir_.emplace(key, parent->second);
        return parent->second;
      }
    }
    Config found = find_config(dir, catalog_);
    const std::string file_key = found.file ? fs::absolute(*found.file).lexically_normal().generic_string() : "";
    auto& shared = by_file_[file_key];
    if (!shared) shared = adopt(std::move(found));
    by_dir_.emplace(key, shared);
    return shared;
  }

 private:
  std::shared_ptr<const Config> adopt(Config config) const {
    if (options_.select) {
      config.select = {*options_.select, "command line"};
      config.ignore = {{}, "command line"};
    }
    if (!options_.ignore.empty()) {
      config.ignore.value.insert(config.ignore.value.end(), options_.ignore.begin(), options_.ignore.end());
      config.ignore.source = "command line";
    }
    return std::make_shared<const Config>(std::move(config));
  }

  const CheckOptions& options_;
  const Catalog& catalog_;
  std::shared_ptr<const Config> fixed_;
  std::map<std::string, std::shared_ptr<const Config>> by_dir_;
  std::map<std::string, std::shared_ptr<const Config>> by_file_;
};

fs::path absolute_normal(const fs::path& p) {
  std::error_code ec;
  fs::path abs = fs::absolute(p, ec);
  return (ec ? p : abs).lexically_normal();
}

// A file found by the walk that is no longer a regular file: deleted, replaced by a folder or a FIFO, or
// its folder replaced by a file, while the run was under way. Its absence is no error (it was never named);
// a file that is there but cannot be read still is.
bool gone_since_found(const Candidate& c) {
  if (c.named) return false;
  struct stat st{};
  if (::stat(c.open_path.c_str(), &st) != 0) return errno == ENOENT || errno == ENOTDIR;
  return !S_ISREG(st.st_mode);
}

struct ReadFile {
  const Candidate* candidate = nullptr;
  std::shared_ptr<const Config> config;
  std::string text;
};

std::vector<FileResult> analyze_python(const std::vector<python::SourceFile>& files, const python::Options& options) {
  std::vector<python::FileResult> results = python::analyze_project(files, options);
  std::vector<FileResult> out(results.size());
  for (std::size_t i = 0; i < results.size(); ++i) {
    out[i].path = std::move(results[i].path);
    out[i].findings = std::move(results[i].findings);
    out[i].comments = std::move(results[i].comments);
    out[i].errors = std::move(results[i].errors);
  }
  return out;
}

// Suppressions, then configuration, for one file's findings, into the report.
void finish_file(Language lang, FileResult& result, const fs::path& open_path, const Config& config,
                 const Catalog& catalog, Report& report) {
  std::vector<Finding> kept = finish_findings(lang, result.path, std::move(result.findings), result.comments,
                                              result.report_unused_suppressions, open_path, config, catalog);
  report.findings.insert(report.findings.end(), std::make_move_iterator(kept.begin()),
                         std::make_move_iterator(kept.end()));
  for (FileError& e : result.errors) report.errors.push_back(std::move(e));
}

}  // namespace

Report run_check(const CheckOptions& options, const ProgressFn& progress) {
  // Read the probe report first: a bad one fails before any analysis.
  std::optional<CostReport> costs;
  if (options.costs_file) {
    try {
      costs = read_cost_report(*options.costs_file);
    } catch (const CostReportError& e) {
      throw ConfigError(std::string("--costs: ") + e.what());
    }
  }
  const Catalog& builtin = Catalog::builtin();
  ConfigResolver configs(options, builtin);
  const unsigned jobs = effective_jobs(options.jobs);

  ExcludeFn excluded = [&](const fs::path& path, bool) {
    return configs.for_dir(path.parent_path())->excluded(path);
  };
  Discovery discovery = discover(options.paths, excluded);

  // C++ files met while walking are checked only where a compilation database lists them (headers only
  // through the units that include them); named ones always.
  std::optional<CxxFrontend> cxx;
  if (std::any_of(discovery.files.begin(), discovery.files.end(),
                  [](const Candidate& c) { return c.language == Language::Cxx && frontend_available(c.language); })) {
    cxx.emplace(options.cxx);
    std::erase_if(discovery.files, [&](const Candidate& c) {
      return c.language == Language::Cxx && !c.named && !cxx->takes_walked(absolute_normal(c.open_path));
    });
  }

  Report report;
  report.errors = std::move(discovery.errors);

  // Configuration per file (single-threaded: the resolver caches), then the reads in parallel.
  std::vector<ReadFile> files(discovery.files.size());
  for (std::size_t i = 0; i < files.size(); ++i) {
    const Candidate& c = discovery.files[i];
    files[i].candidate = &c;
    files[i].config = configs.for_dir(absolute_normal(c.open_path).parent_path());
  }
  const std::size_t total = files.size();
  if (progress) progress(0, total);

  if (options.after_discovery) options.after_discovery();
  std::vector<std::optional<FileError>> read_errors(files.size());
  parallel_for(files.size(), jobs, [&](std::size_t i, unsigned) {
    const Candidate& c = *files[i].candidate;
    auto result = read_source(c.open_path, c.path, options.max_file_bytes);
    if (auto* text = std::get_if<std::string>(&result))
      files[i].text = std::move(*text);
    else
      read_errors[i] = gone_since_found(c) ? FileError{c.path, "deleted or replaced (no longer a regular file) after it "
                                                               "was found; skipped", false, std::nullopt}
                                           : std::move(std::get<FileError>(result));
  });

  // One project per configuration and language: every file under one configuration root is analysed
  // together, so calls across files make their callees hot.
  std::map<std::pair<const Config*, Language>, std::vector<std::size_t>> projects;
  for (std::size_t i = 0; i < files.size(); ++i) {
    const Candidate& c = *files[i].candidate;
    if (read_errors[i]) {
      report.errors.push_back(std::move(*read_errors[i]));
      continue;
    }
    if (!frontend_available(c.language)) {
      report.errors.push_back(FileError{c.path, "no " + std::string(to_string(c.language)) +
                                                    " front-end in this build; skipped", false, std::nullopt});
      continue;
    }
    projects[{files[i].config.get(), c.language}].push_back(i);
  }

  std::size_t done = 0;
  for (auto& [key, members] : projects) {
    const Config& config = *key.first;
    // The built-in rules plus the configuration's own syncing APIs.
    Catalog catalog = Catalog::builtin();
    apply_extra_apis(config, catalog);
    python::Options analyzer_options;
    analyzer_options.catalog = &catalog;
    analyzer_options.hot_functions = default_hot_functions();
    for (const std::string& f : config.hot_functions.value) analyzer_options.hot_functions.push_back(f);
    analyzer_options.report_cold = options.report_cold;
    analyzer_options.jobs = jobs;

    std::vector<python::SourceFile> sources;
    sources.reserve(members.size());
    for (std::size_t i : members) {
      sources.push_back({files[i].candidate->path, std::move(files[i].text)});
      files[i].text = {};
    }
    std::vector<FileResult> results;
    std::vector<FileResult> headers;
    try {
      if (key.second == Language::Python) {
        results = analyze_python(sources, analyzer_options);
      } else {
        std::vector<CxxUnit> units;
        for (std::size_t i : members) units.push_back({files[i].candidate->path, absolute_normal(files[i].candidate->open_path)});
        CxxProjectResult cxx_result = cxx->analyze(units, catalog, options.report_cold, jobs, absolute_normal(config.root));
        results = std::move(cxx_result.units);
        headers = std::move(cxx_result.headers);
      }
    } catch (const std::exception& e) {
      // A front-end failure (out of memory, an internal error) loses this project, not the run.
      for (const python::SourceFile& f : sources)
        report.errors.push_back(FileError{f.path, std::string("internal error while analysing: ") + e.what(),
                                          true, std::nullopt});
    }
    sources.clear();
    for (std::size_t k = 0; k < results.size() && k < members.size(); ++k) {
      finish_file(key.second, results[k], files[members[k]].candidate->open_path, config, catalog, report);
      report.checked_paths.push_back(files[members[k]].candidate->path);
      ++report.files_checked;
    }
    for (FileResult& header : headers) finish_file(key.second, header, header.path, config, catalog, report);
    done += members.size();
    if (progress) progress(done, total);
  }

  std::sort(report.findings.begin(), report.findings.end(), finding_less);
  std::sort(report.checked_paths.begin(), report.checked_paths.end());
  if (costs) {
    std::vector<std::pair<std::string, std::string>> mappings;
    for (const PathMapping& m : options.path_mappings) mappings.emplace_back(m.from, m.to);
    join_costs(report, *costs, mappings);  // orders costed findings first, by predicted saving
  }
  std::stable_sort(report.errors.begin(), report.errors.end(),
                   [](const FileError& a, const FileError& b) { return a.path < b.path; });
  return report;
}

}  // namespace synclint::engine
