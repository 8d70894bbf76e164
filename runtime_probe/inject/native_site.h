// C++ call sites: the innermost return address outside CUDA, LibTorch, the C/C++ runtime and the probe,
// recorded as (module, offset) at the call and symbolized in batches (by one tool process per module) on
// the probe's resolver thread as soon as they are captured, and at the latest before the window that uses
// them is analysed. Each distinct return address is symbolized once.
#pragma once

#include <array>
#include <atomic>
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
  // `symbolizer`: the tool to use (Symbolizer's `want`; empty: the first found).
  NativeSites(const SiteFilters& filters, SiteTable& table, std::string_view symbolizer = {});
  // Walks the calling thread's stack up to the first user frame; returns a site index (a placeholder
  // until resolve()) or -1.
  std::int32_t capture();
  // The same for a given list of return addresses (innermost first); used by the tests.
  std::int32_t site_for(void* const* frames, int n);
  // Symbolizes every placeholder created since the last call and rewrites it in the site table. Calls
  // from two threads (the probe's resolver, a window cut) run one after the other: a cut waits for the
  // placeholders another call is symbolizing, so that its window's sites carry their file:line.
  void resolve();
  // True once after capture() made new placeholders: the probe then has its resolver thread resolve them
  // at once, rather than at the next cut (which may fall in the program's timed steps).
  bool take_new_placeholders() {
    return new_placeholders_.load(std::memory_order_relaxed) && new_placeholders_.exchange(false, std::memory_order_relaxed);
  }
  const Symbolizer& symbolizer() const { return symbolizer_; }
  // Ends the symbolizer's tool processes (the probe's end; a later resolve() starts them again).
  void stop_symbolizer() { symbolizer_.stop(); }
  // Ends the symbolizer's tools that have had no new site for Symbolizer::kIdle (at each window cut).
  void stop_idle_symbolizer(std::chrono::steady_clock::time_point now) { symbolizer_.stop_idle(now); }
  // Walks done from learned steps, and full unwinds (SYNCLINT_PROBE_DEBUG).
  std::uint64_t fast_walks() const { return fast_walks_; }
  std::uint64_t full_walks() const { return full_walks_; }
  // Why walks went to the unwinder: "no-stack-bounds N, start-cfa N, new-step N, varying-step N, ...".
  std::string fallback_summary() const;

 private:
  struct Module {
    std::string path;
    std::uintptr_t bias = 0;
    bool skip = false;
  };
  static constexpr int kCandidates = 8;
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

  // Unwinding a whole stack with the DWARF unwinder costs about 0.4 us a frame, and a CUDA call made by
  // LibTorch is 20-30 frames below the user's code. So each full unwind also records its steps: from a
  // frame (identified by its own and its callee's return address) to its CFA, a fixed distance for
  // frames without dynamic stack allocation (the step from its stack pointer at the call to its CFA). Later walks follow recorded steps only, reading each
  // return address from the stack (within the thread's stack bounds); a step never seen, or seen with
  // two distances, sends the walk back to the full unwinder, which records it.
  struct StepKey {
    std::uintptr_t callee, ip;
    bool operator==(const StepKey&) const = default;
  };
  struct StepHash {
    std::size_t operator()(const StepKey& k) const { return std::hash<std::uintptr_t>()(k.callee * 31 + k.ip); }
  };
  bool fast_walk(std::uintptr_t cfa, std::uintptr_t ip, Candidates& c, int& n);
  void learn(const std::vector<std::pair<std::uintptr_t, std::uintptr_t>>& frames, std::uintptr_t start_cfa,
             bool reached_end);
  static constexpr std::int64_t kVarying = -1, kEndOfStack = 0;
  std::unordered_map<StepKey, std::int64_t, StepHash> steps_;  // CFA distance, kVarying or kEndOfStack
  bool fast_ok_ = true;
  std::atomic<std::uint64_t> fast_walks_{0}, full_walks_{0};
  enum Fallback { kNoStack, kStartCfa, kNewStep, kVaryingStep, kOutOfStack, kTooDeep, kFallbacks };
  std::array<std::atomic<std::uint64_t>, kFallbacks> fallbacks_{};

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
  std::atomic<bool> new_placeholders_{false};
  std::mutex resolve_mu_;  // held through resolve()
};

// The frame of an inline chain (innermost first) to report: the innermost whose file is not skipped,
// else the outermost.
const SourceFrame* pick_frame(const std::vector<SourceFrame>& chain, const SkipList& skip_files);

std::string demangle(const char* name);

}  // namespace synclint::probe::inject
