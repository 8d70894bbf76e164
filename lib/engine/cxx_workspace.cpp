#include "engine/cxx_workspace.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <optional>
#include <thread>

#include "core/catalog.h"
#include "engine/finish.h"
#include "engine/workspace.h"

#if SYNCLINT_HAVE_CXX
#include "cxx/compile_db.h"
#include "cxx/unit_cache.h"
#endif

namespace synclint::engine {
namespace fs = std::filesystem;

namespace {

struct Request {
  std::string text;
  std::shared_ptr<const Config> config;
  std::uint64_t generation = 0;
};

// One unit's last results, after suppressions and configuration.
struct UnitResults {
  std::vector<std::pair<std::string, std::vector<Finding>>> files;  // the main file first, then headers
  std::vector<FileError> errors;
};

std::string seconds(std::chrono::steady_clock::duration d) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.2f s", std::chrono::duration<double>(d).count());
  return buffer;
}

}  // namespace

struct CxxWorkspace::State {
  CxxWorkspaceOptions options;
  std::mutex mutex;
  std::condition_variable wake;
  std::map<std::string, Request> pending;        // not yet started
  std::vector<std::string> forgotten;            // closed: the worker frees their units
  std::map<std::string, std::uint64_t> latest;   // generation of each file's newest request
  std::map<std::string, UnitResults> results;
  std::vector<std::string> log;
  std::uint64_t generation = 0;
  bool stop = false;
  std::thread worker;
#if SYNCLINT_HAVE_CXX
  std::optional<cxx::UnitCache> cache;  // used on one thread only: the worker's, or the caller's
  bool cache_failed = false;
#endif

  // Analyses one request; results are kept unless a newer request for the file came meanwhile.
  void run(const std::string& key, const Request& request) {
    UnitResults out;
    std::string line;
#if SYNCLINT_HAVE_CXX
    const auto start = std::chrono::steady_clock::now();
    if (!cache && !cache_failed) {
      try {
        cache.emplace(options.cxx);
      } catch (const cxx::DatabaseError& e) {
        cache_failed = true;
        std::lock_guard lock(mutex);
        log.push_back(std::string("synclint: C++ files are not analysed: ") + e.what());
      }
    }
    if (!cache) return;
    const Config& config = *request.config;
    try {
      Catalog catalog = Catalog::builtin();
      apply_extra_apis(config, catalog);
      cxx::RunOptions run_options;
      run_options.catalog = &catalog;
      run_options.report_cold = options.report_cold;
      run_options.jobs = 1;
      run_options.project_root = fs::path(workspace_key(config.root));
      cxx::UnitCache::Analysis analysis = cache->analyze({key, fs::path(key)}, request.text, run_options);
      FileResult& unit = analysis.result.units.at(0);
      out.files.emplace_back(key, finish_findings(Language::Cxx, unit.path, std::move(unit.findings), unit.comments,
                                                  unit.report_unused_suppressions, key, config, catalog));
      out.errors = std::move(unit.errors);
      for (FileResult& header : analysis.result.headers) {
        const std::string header_key = workspace_key(header.path);
        std::vector<Finding> kept = finish_findings(Language::Cxx, header.path, std::move(header.findings),
                                                    header.comments, false, header.path, config, catalog);
        for (Finding& f : kept) f.range.path = header_key;
        out.files.emplace_back(header_key, std::move(kept));
      }
      for (auto& [path, findings] : out.files) std::sort(findings.begin(), findings.end(), finding_less);
      line = "synclint: analysed " + key + " in " + seconds(std::chrono::steady_clock::now() - start) +
             (analysis.preamble_reused ? " (preamble reused)" : "");
    } catch (const std::exception& e) {  // extra-sync-apis naming what does not exist; out of memory
      line = "synclint: " + key + " not analysed: " + e.what();
    }
#else
    (void)request;
#endif
    std::lock_guard lock(mutex);
    if (!line.empty()) log.push_back(std::move(line));
    for (const FileError& e : out.errors) {
      std::string where = e.path;
      if (e.position) where += ":" + std::to_string(e.position->line) + ":" + std::to_string(e.position->column);
      log.push_back("synclint: " + where + ": " + e.message);
    }
    if (latest[key] == request.generation) results[key] = std::move(out);
  }

  void loop() {
    for (;;) {
      std::string key;
      Request request;
      {
        std::unique_lock lock(mutex);
        wake.wait(lock, [&] { return stop || !pending.empty() || !forgotten.empty(); });
        if (stop) return;
#if SYNCLINT_HAVE_CXX
        for (const std::string& f : forgotten)
          if (cache) cache->forget(fs::path(f));
#endif
        forgotten.clear();
        if (pending.empty()) continue;
        auto it = pending.begin();
        key = it->first;
        request = std::move(it->second);
        pending.erase(it);
      }
      run(key, request);
      std::function<void()> ready;
      {
        std::lock_guard lock(mutex);
        if (stop) return;
        ready = options.ready;
      }
      ready();
    }
  }
};

CxxWorkspace::CxxWorkspace(CxxWorkspaceOptions options) : state_(std::make_shared<State>()) {
  state_->options = std::move(options);
}

CxxWorkspace::~CxxWorkspace() {
  {
    std::lock_guard lock(state_->mutex);
    state_->stop = true;
  }
  state_->wake.notify_all();
  // A parse in progress is not interrupted: the worker finishes it on its own and the state outlives us.
  if (state_->worker.joinable()) state_->worker.detach();
}

void CxxWorkspace::request(const std::string& key, std::string text, std::shared_ptr<const Config> config) {
  State& s = *state_;
  Request request{std::move(text), std::move(config), 0};
  {
    std::lock_guard lock(s.mutex);
    request.generation = ++s.generation;
    s.latest[key] = request.generation;
    if (s.options.ready) {
      s.pending[key] = std::move(request);
      if (!s.worker.joinable()) s.worker = std::thread([state = state_] { state->loop(); });
    }
  }
  if (s.options.ready)
    s.wake.notify_one();
  else
    s.run(key, request);
}

void CxxWorkspace::forget(const std::string& key) {
  State& s = *state_;
  {
    std::lock_guard lock(s.mutex);
    s.pending.erase(key);
    s.results.erase(key);
    s.latest[key] = ++s.generation;  // a parse in progress is dropped
    if (s.options.ready) {
      s.forgotten.push_back(key);
    } else {
#if SYNCLINT_HAVE_CXX
      if (s.cache) s.cache->forget(fs::path(key));
#endif
    }
  }
  s.wake.notify_one();
}

void CxxWorkspace::collect(WorkspaceResult& out) {
  State& s = *state_;
  std::lock_guard lock(s.mutex);
  for (const auto& [unit, results] : s.results) {
    for (const auto& [path, findings] : results.files) {
      std::vector<Finding>& into = out.findings[path];
      for (const Finding& f : findings) {
        const bool seen = std::any_of(into.begin(), into.end(), [&](const Finding& g) {
          return g.rule_id == f.rule_id && g.range == f.range && g.message == f.message;
        });
        if (!seen) into.push_back(f);  // a header two open units include
      }
    }
    out.errors.insert(out.errors.end(), results.errors.begin(), results.errors.end());
  }
  for (auto& [path, findings] : out.findings) std::sort(findings.begin(), findings.end(), finding_less);
  out.log.insert(out.log.end(), std::make_move_iterator(s.log.begin()), std::make_move_iterator(s.log.end()));
  s.log.clear();
}

}  // namespace synclint::engine
