#include "engine/cxx_workspace.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <optional>
#include <thread>

#include "core/catalog.h"
#include "engine/cxx_module.h"
#include "engine/finish.h"
#include "engine/workspace.h"

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
  std::vector<std::string> preambles;           // parsed without a preamble: the worker builds it when idle
  bool uncollected = false;                      // results not yet collected: the preambles wait for that
  std::vector<std::string> log;
  std::uint64_t generation = 0;
  bool stop = false;
  std::thread worker;
#if SYNCLINT_HAVE_CXX
  std::unique_ptr<CxxUnitCache> cache;  // used on one thread only: the worker's, or the caller's
  bool cache_failed = false;
#endif

  // Analyses one request; results are kept unless a newer request for the file came meanwhile.
  void run(const std::string& key, const Request& request) {
    UnitResults out;
    std::string line;
    bool wants_preamble = false;
#if SYNCLINT_HAVE_CXX
    const auto start = std::chrono::steady_clock::now();
    if (!cache && !cache_failed) {
      try {
        cache = cxx_module().unit_cache(options.cxx);
      } catch (const ConfigError& e) {
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
      const CxxRunSettings settings{&catalog, options.report_cold, 1, fs::path(workspace_key(config.root))};
      CxxUnitCache::Analysis analysis = cache->analyze({key, fs::path(key)}, request.text, settings);
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
             (analysis.preamble_reused   ? " (preamble reused)"
              : analysis.preamble_wanted ? " (without a preamble; building it next)"
                                         : "");
      wants_preamble = analysis.preamble_wanted;
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
    if (latest[key] != request.generation) return;
    results[key] = std::move(out);
    uncollected = static_cast<bool>(options.ready);
    if (wants_preamble && std::find(preambles.begin(), preambles.end(), key) == preambles.end())
      preambles.push_back(key);
  }

  // Precompiles the preamble of a unit parsed without one; the log says how long it took.
  void build_preamble(const std::string& key) {
#if SYNCLINT_HAVE_CXX
    if (!cache) return;
    const auto start = std::chrono::steady_clock::now();
    const bool built = cache->build_preamble(fs::path(key));
    std::lock_guard lock(mutex);
    log.push_back(built ? "synclint: preamble of " + key + " built in " +
                              seconds(std::chrono::steady_clock::now() - start)
                        : "synclint: no preamble for " + key +
                              " (its #includes do not compile): each save parses the whole unit");
#else
    (void)key;
#endif
  }

  // The next unit whose preamble is to be built, when no request waits and the results were collected.
  std::optional<std::string> next_preamble() {
    if (!pending.empty() || preambles.empty() || uncollected) return std::nullopt;
    std::string key = preambles.front();
    preambles.erase(preambles.begin());
    return key;
  }

  void loop() {
    for (;;) {
      std::string key;
      Request request;
      std::optional<std::string> preamble;
      {
        std::unique_lock lock(mutex);
        const auto work = [&] {
          return stop || !pending.empty() || !forgotten.empty() || (!preambles.empty() && !uncollected);
        };
        // A preamble is built once the caller has taken the results (their publication is not slowed by
        // it), or after a while if it does not come for them.
        if (!preambles.empty() && uncollected) {
          if (!wake.wait_for(lock, std::chrono::seconds(2), work)) uncollected = false;
        } else {
          wake.wait(lock, work);
        }
        if (stop) return;
#if SYNCLINT_HAVE_CXX
        for (const std::string& f : forgotten)
          if (cache) cache->forget(fs::path(f));
#endif
        forgotten.clear();
        preamble = next_preamble();
        if (!preamble) {
          if (pending.empty()) continue;
          auto it = pending.begin();
          key = it->first;
          request = std::move(it->second);
          pending.erase(it);
        }
      }
      if (preamble)
        build_preamble(*preamble);
      else
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
  if (s.options.ready) {
    s.wake.notify_one();
    return;
  }
  s.run(key, request);
  std::optional<std::string> preamble;
  {
    std::lock_guard lock(s.mutex);
    preamble = s.next_preamble();
  }
  if (preamble) s.build_preamble(*preamble);
}

void CxxWorkspace::forget(const std::string& key) {
  State& s = *state_;
  {
    std::lock_guard lock(s.mutex);
    s.pending.erase(key);
    s.results.erase(key);
    s.preambles.erase(std::remove(s.preambles.begin(), s.preambles.end(), key), s.preambles.end());
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
  std::unique_lock lock(s.mutex);
  s.uncollected = false;
  std::map<std::string, std::vector<Finding>> added;
  for (const auto& [unit, results] : s.results) {
    for (const auto& [path, findings] : results.files) {
      std::vector<Finding>& into = added[path];
      for (const Finding& f : findings) {
        const bool seen = std::any_of(into.begin(), into.end(), [&](const Finding& g) {
          return g.rule_id == f.rule_id && g.range == f.range && g.message == f.message;
        });
        if (!seen) into.push_back(f);  // a header two open units include
      }
    }
    out.errors.insert(out.errors.end(), results.errors.begin(), results.errors.end());
  }
  for (auto& [path, findings] : added) {
    FindingList& list = out.findings[path];
    if (list) findings.insert(findings.begin(), list->begin(), list->end());
    std::sort(findings.begin(), findings.end(), finding_less);
    list = std::make_shared<const std::vector<Finding>>(std::move(findings));
  }
  out.log.insert(out.log.end(), std::make_move_iterator(s.log.begin()), std::make_move_iterator(s.log.end()));
  s.log.clear();
  lock.unlock();
  s.wake.notify_one();
}

}  // namespace synclint::engine
