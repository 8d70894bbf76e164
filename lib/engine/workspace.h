// A long-lived view of one workspace folder for the language server: the files on disk (walked once,
// re-read only when told they changed), an overlay of the editor's open buffers that wins over the disk,
// the configurations, and the last results of each project, reused while none of its inputs changed (and,
// when some did, its files' parses and its untouched groups' results: python::ProjectCache).
// analyze() runs the same front-end, suppressions and configuration steps as `synclint check`.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/config.h"
#include "core/finding.h"
#include "engine/engine.h"

namespace synclint::engine {

struct WorkspaceOptions {
  std::filesystem::path root;           // workspace folder; empty: only the open buffers are analysed
  bool report_cold = false;             // --all
  unsigned jobs = 0;                    // 0 -> all cores
  std::size_t max_file_bytes = 64u << 20;
  CxxOptions cxx;                       // C++: how compile commands are found (-p), as for `check`
  std::function<void()> cxx_ready;      // set: C++ units are analysed in the background (cxx_workspace.h)
};

// A configuration file that could not be read: where, and what is wrong with it.
struct ConfigProblem {
  std::filesystem::path file;
  std::string message;
};

using FindingList = std::shared_ptr<const std::vector<Finding>>;

struct WorkspaceResult {
  // Findings per file (absolute, lexically normal path, '/' separators), after suppressions and
  // configuration, in output order. Every analysed file has an entry, empty when clean, and null when its
  // findings were not wanted and are made when asked (Workspace::findings_of). Shared with the workspace:
  // a file the analysis left alone keeps the list it had.
  std::map<std::string, FindingList> findings;
  std::vector<FileError> errors;
  std::vector<ConfigProblem> config_problems;
  // Files skipped because this build has no front-end for their language (C++ until it is built).
  std::vector<std::string> unsupported;
  // Lines for the server's log (C++ units analysed, their compiler errors).
  std::vector<std::string> log;
  // `stop` ended the analysis: nothing else here holds.
  bool stopped = false;
};

class Workspace {
 public:
  explicit Workspace(WorkspaceOptions options);
  ~Workspace();
  Workspace(const Workspace&) = delete;
  Workspace& operator=(const Workspace&) = delete;

  const std::filesystem::path& root() const;

  // The editor's buffer for `path` (absolute), used instead of the file on disk until closed.
  void set_overlay(const std::filesystem::path& path, std::string text);
  void clear_overlay(const std::filesystem::path& path);
  // A file on disk changed, appeared or went away: read it again at the next analysis.
  void file_changed(const std::filesystem::path& path);
  // A C++ source was opened or saved: analyse its translation unit with the text it has now (C++ units are
  // analysed on open and save only; the findings appear in a later analyze()).
  void analyze_unit(const std::filesystem::path& path);
  // Configuration files changed (or anything that may change which files are walked): walk again.
  void reload();

  // Analyses every project of the workspace (one per configuration, as `check` groups them) that holds a
  // source, reusing the results of projects whose sources and configuration did not change.
  // Never throws for bad input. `stop` is asked between the rounds of a Python analysis: true ends it, with
  // a result that says `stopped`, and the next analyze() takes up what it made (parses and walks).
  // With `wanted`, the files it refuses may be given no findings (a null list) where making them would
  // only write again the calling chains of a walk kept from an earlier analysis (a helper in a closed
  // file whose call moved): findings_of makes them when asked.
  WorkspaceResult analyze(const std::function<bool()>& stop = {},
                          const std::function<bool(const std::string& path)>& wanted = {});
  // The findings of `path` in the last analysis, made now when that analysis left them (null when it had
  // no such Python file).
  FindingList findings_of(const std::string& path);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// The normal form of paths the workspace uses as keys: absolute, lexically normal, '/' separators.
std::string workspace_key(const std::filesystem::path& path);

// For the process that keeps a Workspace and analyses it on every edit: memory one analysis frees stays
// with the allocator for the next, instead of going back to the system and being faulted in again page by
// page (resident memory stays at its peak). Process-wide; the language server calls it as it starts.
void keep_freed_memory();

}  // namespace synclint::engine
