#include "native_site.h"

#include <cxxabi.h>
#include <dlfcn.h>
#include <execinfo.h>
#include <link.h>
#include <unwind.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <map>

namespace synclint::probe::inject {

std::string demangle(const char* name) {
  if (name == nullptr) return {};
  int status = 0;
  char* d = abi::__cxa_demangle(name, nullptr, nullptr, &status);
  if (d == nullptr) return name;
  std::string out = d;
  std::free(d);
  return out;
}

const SourceFrame* pick_frame(const std::vector<SourceFrame>& chain, const SkipList& skip_files) {
  for (const auto& f : chain)
    if (!f.file.empty() && f.line != 0 && !skip_files.matches(f.file)) return &f;
  return chain.empty() ? nullptr : &chain.back();
}

NativeSites::NativeSites(const SiteFilters& filters, SiteTable& table, std::string_view symbolizer)
    : filters_(filters), table_(table), symbolizer_(symbolizer) {
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n > 0) self_exe_.assign(buf, static_cast<std::size_t>(n));
  void* warm[4];
  backtrace(warm, 4);  // loads the unwinder now, not inside the first callback
}

// The loaded object holding `address`, or nullptr. glibc 2.35's _dl_find_object takes 0.25 us; dladdr1
// also looks for the nearest symbol, scanning the object's whole symbol table: 340 us in Debian's
// libtorch_cpu.so, which a site capture through a dozen new LibTorch frames paid for each of them.
namespace {
link_map* object_of(std::uintptr_t address) {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 35))
  dl_find_object found{};
  return _dl_find_object(reinterpret_cast<void*>(address), &found) == 0 ? found.dlfo_link_map : nullptr;
#else
  Dl_info info{};
  link_map* lm = nullptr;
  return dladdr1(reinterpret_cast<void*>(address), &info, reinterpret_cast<void**>(&lm), RTLD_DL_LINKMAP) != 0 ? lm
                                                                                                             : nullptr;
#endif
}
}  // namespace

int NativeSites::module_of(std::uintptr_t address) {
  if (auto it = module_cache_.find(address); it != module_cache_.end()) return it->second;
  int result = -1;
  if (link_map* lm = object_of(address); lm != nullptr) {
    std::string path = (lm->l_name != nullptr && lm->l_name[0] != '\0') ? lm->l_name : self_exe_;
    std::size_t idx = modules_.size();
    for (std::size_t i = 0; i < modules_.size(); ++i)
      if (modules_[i].path == path && modules_[i].bias == lm->l_addr) idx = i;
    if (idx == modules_.size()) modules_.push_back({path, lm->l_addr, filters_.native_modules.matches(path)});
    result = modules_[idx].skip ? -1 : static_cast<int>(idx);
  }
  module_cache_.emplace(address, result);
  return result;
}

namespace {
struct Walk {
  NativeSites* self;
  bool (*offer)(NativeSites*, std::uintptr_t, void*, int&);
  void* candidates;
  std::vector<std::pair<std::uintptr_t, std::uintptr_t>>* frames;  // (ip, sp) of each frame walked
  int n = 0;
};

// The highest stack address the DWARF unwinder has read on this thread: walks read no higher (the stack
// between there and the current frame stays mapped), so no /proc or pthread attribute is needed.
thread_local std::uintptr_t t_stack_seen = 0;
}  // namespace

bool NativeSites::offer(std::uintptr_t address, Candidates& out, int& n) {
  int m = module_of(address);
  if (m < 0) return true;
  auto r = resolved_.find(address);
  if (r != resolved_.end() && !r->second.user) return true;  // a library header instantiated here
  for (int i = 0; i < n; ++i)
    if (out[static_cast<std::size_t>(i)] == address) return true;  // recursion: already a candidate
  out[static_cast<std::size_t>(n++)] = address;
  return !(r != resolved_.end() && r->second.user) && n < kCandidates;
}

bool NativeSites::fast_walk(std::uintptr_t cfa, std::uintptr_t ip, Candidates& c, int& n) {
#if defined(__x86_64__)
  auto fail = [&](Fallback why) {
    ++fallbacks_[why];
    return false;
  };
  if (!fast_ok_) return fail(kStartCfa);
  if (t_stack_seen == 0) return fail(kNoStack);
  std::uintptr_t callee = 0;
  for (int depth = 0; depth < 256; ++depth) {
    if (!offer(ip, c, n)) return true;
    auto it = steps_.find({callee, ip});
    if (it == steps_.end()) return fail(kNewStep);
    if (it->second == kEndOfStack) return true;  // the unwinder found no frame above this one
    if (it->second < 0) return fail(kVaryingStep);
    std::uintptr_t next = cfa + static_cast<std::uintptr_t>(it->second);
    if (next > t_stack_seen || next <= cfa) return fail(kOutOfStack);
    callee = ip;
    ip = *reinterpret_cast<const std::uintptr_t*>(next - 8);  // the return address sits below the CFA
    cfa = next;
  }
  return fail(kTooDeep);
#else
  (void)cfa, (void)ip, (void)c, (void)n;
  return false;
#endif
}

std::string NativeSites::fallback_summary() const {
  static const char* names[kFallbacks] = {"no-stack-bounds", "start-cfa", "new-step", "varying-step", "out-of-stack",
                                          "too-deep"};
  std::string out;
  for (int i = 0; i < kFallbacks; ++i) {
    if (!out.empty()) out += ", ";
    out += std::string(names[i]) + " " + std::to_string(fallbacks_[static_cast<std::size_t>(i)].load());
  }
  return out;
}

void NativeSites::learn(const std::vector<std::pair<std::uintptr_t, std::uintptr_t>>& frames, std::uintptr_t start_cfa,
                        bool reached_end) {
  std::size_t k = 0;
  while (k < frames.size() && frames[k].second != start_cfa) ++k;
  if (k == frames.size()) {
    fast_ok_ = false;  // capture()'s own CFA is not where it was assumed: full unwinds only
    return;
  }
  for (const auto& f : frames) t_stack_seen = std::max(t_stack_seen, f.second);
  auto record = [&](StepKey key, std::int64_t delta) {
    auto [it, inserted] = steps_.try_emplace(key, delta);
    if (!inserted && it->second != delta) it->second = kVarying;
  };
  std::uintptr_t callee = 0;
  for (std::size_t i = k; i + 1 < frames.size(); ++i) {
    record({callee, frames[i].first}, static_cast<std::int64_t>(frames[i + 1].second - frames[i].second));
    callee = frames[i].first;
  }
  // The outermost frame of the thread: a walk that gets there is complete.
  if (reached_end && frames.size() > k) record({callee, frames.back().first}, kEndOfStack);
}

__attribute__((noinline)) std::int32_t NativeSites::capture() {
  std::lock_guard lock(mu_);
  Candidates c{};
  int n = 0;
  // This function keeps a frame pointer (it asks for its frame address): its CFA is rbp + 16.
  auto start_cfa = reinterpret_cast<std::uintptr_t>(__builtin_frame_address(0)) + 16;
  auto start_ip = reinterpret_cast<std::uintptr_t>(__builtin_return_address(0));
  if (fast_walk(start_cfa, start_ip, c, n)) {
    ++fast_walks_;
    return site_for_candidates(c, n);
  }
  ++full_walks_;
  c = {};
  std::vector<std::pair<std::uintptr_t, std::uintptr_t>> frames;
  frames.reserve(64);
  Walk w{this,
         [](NativeSites* self, std::uintptr_t a, void* cands, int& k) {
           return self->offer(a, *static_cast<Candidates*>(cands), k);
         },
         &c, &frames};
  bool past_start = false, enough = false;
  struct Arg {
    Walk* w;
    std::uintptr_t start_cfa;
    bool* past_start;
    bool* enough;
  } arg{&w, start_cfa, &past_start, &enough};
  // Stops at the first frame of user code instead of unwinding the whole stack.
  _Unwind_Backtrace(
      [](_Unwind_Context* ctx, void* p) -> _Unwind_Reason_Code {
        auto* a = static_cast<Arg*>(p);
        std::uintptr_t ip = _Unwind_GetIP(ctx);
        if (ip == 0 || a->w->frames->size() > 256) return _URC_END_OF_STACK;
        // During the walk the context's CFA is the callee's: this frame's stack pointer at the call.
        std::uintptr_t sp = _Unwind_GetCFA(ctx);
        a->w->frames->emplace_back(ip, sp);
        // Frames up to capture()'s own are the probe's: candidates start with its caller.
        if (!*a->past_start) {
          if (sp != a->start_cfa) return _URC_NO_REASON;
          *a->past_start = true;
        }
        if (a->w->offer(a->w->self, ip, a->w->candidates, a->w->n)) return _URC_NO_REASON;
        *a->enough = true;
        return _URC_END_OF_STACK;
      },
      &arg);
  learn(frames, start_cfa, !enough && frames.size() <= 256);
  if (!past_start) {  // no frame matched the assumed CFA: take every frame as a candidate
    c = {};
    w.n = 0;
    for (const auto& f : frames)
      if (!offer(f.first, c, w.n)) break;
  }
  return site_for_candidates(c, w.n);
}

std::int32_t NativeSites::site_for(void* const* frames, int n) {
  std::lock_guard lock(mu_);
  Candidates c{};
  int count = 0;
  for (int i = 0; i < n; ++i)
    if (!offer(reinterpret_cast<std::uintptr_t>(frames[i]), c, count)) break;
  return site_for_candidates(c, count);
}

std::int32_t NativeSites::site_for_candidates(const Candidates& c, int n) {
  if (n == 0) return -1;
  if (auto it = site_cache_.find(c); it != site_cache_.end()) return it->second;
  std::int32_t site;
  auto r = resolved_.find(c[0]);
  if (r != resolved_.end() && r->second.user) {
    site = table_.intern(r->second.site);
  } else {
    const Module& mod = modules_[static_cast<std::size_t>(module_cache_.at(c[0]))];
    char hex[32];
    std::snprintf(hex, sizeof hex, "+0x%llx", static_cast<unsigned long long>(c[0] - mod.bias - 1));
    site = table_.add_unique({mod.path, 0, std::string(hex), "cpp"});
    pending_.push_back({site, c});
    new_placeholders_.store(true, std::memory_order_relaxed);
  }
  site_cache_.emplace(c, site);
  return site;
}

void NativeSites::resolve() {
  std::lock_guard resolving(resolve_mu_);
  std::vector<Pending> work;
  std::map<std::size_t, std::vector<std::uintptr_t>> by_module;
  std::vector<Module> modules;
  {
    std::lock_guard lock(mu_);
    work.swap(pending_);
    modules = modules_;
    for (const auto& p : work)
      for (auto a : p.candidates)
        if (a != 0 && resolved_.find(a) == resolved_.end()) by_module[static_cast<std::size_t>(module_cache_.at(a))].push_back(a);
  }
  if (work.empty()) return;
  std::unordered_map<std::uintptr_t, Resolved> fresh;
  for (auto& [m, addrs] : by_module) {
    std::sort(addrs.begin(), addrs.end());
    addrs.erase(std::unique(addrs.begin(), addrs.end()), addrs.end());
    std::vector<std::uint64_t> offsets;
    // A return address points after the call: look up the byte before it.
    for (auto a : addrs) offsets.push_back(a - modules[m].bias - 1);
    auto chains = symbolizer_.symbolize(modules[m].path, offsets);
    for (std::size_t i = 0; i < addrs.size(); ++i) {
      Resolved r;
      r.site = {modules[m].path, 0, {}, "cpp"};
      const auto& chain = chains[i];
      const SourceFrame* f = pick_frame(chain, filters_.native_files);
      r.user = f != nullptr && !f->file.empty() && f->line != 0 && !filters_.native_files.matches(f->file);
      if (f != nullptr && !f->file.empty()) {
        r.site.path = f->file;
        r.site.line = f->line;
      }
      if (f != nullptr && !f->function.empty()) {
        r.site.function = f->function;
      } else {
        Dl_info info{};
        if (dladdr(reinterpret_cast<void*>(addrs[i] - 1), &info) != 0 && info.dli_sname != nullptr) {
          r.site.function = demangle(info.dli_sname);
        } else {
          char hex[32];
          std::snprintf(hex, sizeof hex, "+0x%llx", static_cast<unsigned long long>(offsets[i]));
          r.site.function = hex;
        }
      }
      // Without line information (no symbolizer, no debug info) a frame of the user's module is the
      // best there is: treat it as user code.
      if (chain.empty()) r.user = true;
      fresh.emplace(addrs[i], std::move(r));
    }
  }
  std::lock_guard lock(mu_);
  for (auto& [a, r] : fresh) resolved_.emplace(a, std::move(r));
  for (const auto& p : work) {
    const Resolved* chosen = nullptr;
    for (auto a : p.candidates) {
      if (a == 0) break;
      auto it = resolved_.find(a);
      if (it == resolved_.end()) continue;
      if (chosen == nullptr) chosen = &it->second;  // fallback: the innermost candidate
      if (it->second.user) {
        chosen = &it->second;
        break;
      }
    }
    if (chosen != nullptr) table_.update(p.site, chosen->site);
  }
}

}  // namespace synclint::probe::inject
