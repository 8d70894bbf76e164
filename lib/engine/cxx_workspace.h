// The language server's C++ side of a workspace: the open C++ sources analysed on open and on save, each
// translation unit kept parsed (lib/cxx/unit_cache.h): a unit opened, or saved with other #includes, is
// parsed whole and its findings published at once; its preamble is built next, when no request waits, so
// that a later save that changes only the main file's body re-parses the body only. The findings go
// through the same suppressions and configuration step as `synclint check`. With a `ready` callback the units are analysed on a worker
// thread (never on the caller's): a newer request for a file replaces one not yet started, and results
// overtaken by a newer request are dropped.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/config.h"
#include "engine/engine.h"

namespace synclint::engine {

struct WorkspaceResult;

struct CxxWorkspaceOptions {
  CxxOptions cxx;                // -p, extra arguments, header filter, as for `check`
  bool report_cold = false;      // --all
  std::function<void()> ready;   // set: analyse in the background, call this (on the worker) after each result
};

class CxxWorkspace {
 public:
  explicit CxxWorkspace(CxxWorkspaceOptions options);
  ~CxxWorkspace();
  CxxWorkspace(const CxxWorkspace&) = delete;
  CxxWorkspace& operator=(const CxxWorkspace&) = delete;

  // Analyse the source `key` (absolute, normal) with `text` as its content, under `config`.
  void request(const std::string& key, std::string text, std::shared_ptr<const Config> config);
  // The file was closed: its results and its parsed unit go.
  void forget(const std::string& key);
  // Adds the latest results (findings per file, errors) and the log lines written since the last call.
  void collect(WorkspaceResult& out);

 private:
  struct State;
  std::shared_ptr<State> state_;
};

}  // namespace synclint::engine
