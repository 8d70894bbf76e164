// C++ call sites: the innermost return address outside CUDA, LibTorch, the C/C++ runtime and the probe,
// recorded as (module, offset) at the call and symbolized in batches (one tool run per module) before
// the window that uses it is analysed. Each distinct return address is symbolized once.
#pragma once

#include <array>
#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "site_filter.h"
#include "site_table.h"
#include "symbolizer.h"

namespace synclint::probe::inject {

class NativeSites {
 public:
  NativeSites(const SiteFilters& filters, SiteTable& table);
  // Walks the calling thread's stack up to the first user frame; returns a site index (a placeholder
  // until resolve()) or -1.
  std::int32_t capture();
  // The same for a given list of return addresses (innermost first); used by the tests.
  std::int32_t site_for(void* const* frames, int n);
  // Symbolizes every placeholder created since the last call and rewrites it in the site table.
  void resolve();
  const Symbolizer& symbolizer() const { return symbolizer_; }

 private:
  struct Module {
    std::string path;
    std::uintptr_t bias = 0;
    bool skip = false;
  };
  static constexpr int kCandidates = 4;
  using Candidates = std::array<std::uintptr_t, kCandidates>;  // user-module return addresses, 0-padded
  struct Pending {
    std::int32_t site;
    Candidates candidates;
  };
  struct Resolved {
    bool user = false;  // the address's source is user code (not only library headers inlined or
                        // instantiated in the user's module): the walk can stop there
    Site site;
  };
  // -1: in a skipped module (or unknown); else the module index.
  int module_of(std::uintptr_t address);
  // Takes one return address during the walk; returns false once enough candidates are known.
  bool offer(std::uintptr_t address, Candidates& out, int& n);
  std::int32_t site_for_candidates(const Candidates& c, int n);
  struct CandidatesHash {
    std::size_t operator()(const Candidates& c) const {
      std::size_t h = 0;
      for (auto a : c) h = h * 1000003u ^ std::hash<std::uintptr_t>()(a);
      return h;
    }
  };

  const SiteFilters& filters_;
  SiteTable& table_;
  Symbolizer symbolizer_;
  std::string self_exe_;
  std::mutex mu_;
  std::vector<Module> modules_;
  std::unordered_map<std::uintptr_t, int> module_cache_;       // return address -> module index / -1
  std::unordered_map<Candidates, std::int32_t, CandidatesHash> site_cache_;
  std::unordered_map<std::uintptr_t, Resolved> resolved_;  // symbolized return addresses
  std::vector<Pending> pending_;
};

// The frame of an inline chain (innermost first) to report: the innermost whose file is not skipped,
// else the outermost.
const SourceFrame* pick_frame(const std::vector<SourceFrame>& chain, const SkipList& skip_files);

std::string demangle(const char* name);

}  // namespace synclint::probe::inject
