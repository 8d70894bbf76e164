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

NativeSites::NativeSites(const SiteFilters& filters, SiteTable& table) : filters_(filters), table_(table) {
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n > 0) self_exe_.assign(buf, static_cast<std::size_t>(n));
  void* warm[4];
  backtrace(warm, 4);  // loads the unwinder now, not inside the first callback
}

int NativeSites::module_of(std::uintptr_t address) {
  if (auto it = module_cache_.find(address); it != module_cache_.end()) return it->second;
  Dl_info info{};
  link_map* lm = nullptr;
  int result = -1;
  if (dladdr1(reinterpret_cast<void*>(address), &info, reinterpret_cast<void**>(&lm), RTLD_DL_LINKMAP) != 0 &&
      lm != nullptr) {
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
  int n = 0;
  int frames = 0;
};
}  // namespace

bool NativeSites::offer(std::uintptr_t address, Candidates& out, int& n) {
  int m = module_of(address);
  if (m < 0) return true;
  auto r = resolved_.find(address);
  if (r != resolved_.end() && !r->second.user) return true;  // a library header instantiated here
  out[static_cast<std::size_t>(n++)] = address;
  return !(r != resolved_.end() && r->second.user) && n < kCandidates;
}

std::int32_t NativeSites::capture() {
  std::lock_guard lock(mu_);
  Candidates c{};
  Walk w{this,
         [](NativeSites* self, std::uintptr_t a, void* cands, int& n) {
           return self->offer(a, *static_cast<Candidates*>(cands), n);
         },
         &c};
  // Stops at the first frame of user code instead of unwinding the whole stack.
  _Unwind_Backtrace(
      [](_Unwind_Context* ctx, void* arg) -> _Unwind_Reason_Code {
        auto* w = static_cast<Walk*>(arg);
        std::uintptr_t ip = _Unwind_GetIP(ctx);
        if (ip == 0 || ++w->frames > 256) return _URC_END_OF_STACK;
        return w->offer(w->self, ip, w->candidates, w->n) ? _URC_NO_REASON : _URC_END_OF_STACK;
      },
      &w);
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
  }
  site_cache_.emplace(c, site);
  return site;
}

void NativeSites::resolve() {
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
