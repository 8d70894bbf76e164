#include "analysis/analysis.h"

#include <algorithm>
#include <limits>
#include <map>

#include "analysis/replay.h"

namespace synclint::probe {

using detail::RecordedCarry;
using detail::Scenario;
using detail::Segment;

struct Accumulator::State {
  struct Key {
    std::string path;
    std::uint32_t line = 0;
    std::string function;
    auto operator<=>(const Key&) const = default;
  };
  struct Agg {
    Site site;
    std::map<std::string, std::uint64_t> apis;
    std::map<std::string, std::uint64_t> rules;
    std::uint64_t calls = 0;
    double host_blocked_ns = 0, gpu_idle_ns = 0, saving_ns = 0, read_saving_ns = 0;
    double wait_bound_ns = 0, read_bound_ns = 0, python_ns = 0;
    double replayed_blocked_ns = 0;  // the blocking calls' time in the baseline replay
  };
  std::map<Key, std::int32_t> site_ids;
  std::vector<Agg> sites;
  Agg unknown_site;  // blocking calls whose site the probe could not resolve

  // Events not analysed yet (site fields are indices into `sites`), sorted by start.
  std::vector<HostCall> host;
  std::vector<GpuActivity> gpu;

  RecordedCarry carry;
  // Untraced spans (sampling) not yet passed by the analysis, by start: nothing is known of what ran in
  // them, so no what-if may carry a lead across one (analyse_ready).
  std::vector<std::pair<std::uint64_t, std::uint64_t>> gaps;
  Scenario baseline;
  // Replays still ahead of the baseline, by 2 * site + (1 for Removal::Read, 0 for Removal::Wait).
  std::map<std::int32_t, Scenario> diverged;

  std::uint64_t run_start_ns = std::numeric_limits<std::uint64_t>::max(), run_end_ns = 0;
  std::uint64_t events_start_ns = std::numeric_limits<std::uint64_t>::max(), events_end_ns = 0;
  std::uint64_t dropped = 0, windows = 0, segments = 0;
  double gpu_idle_ns = 0;

  std::int32_t site_id(const Site& s) {
    auto [it, fresh] = site_ids.emplace(Key{s.path, s.line, s.function}, static_cast<std::int32_t>(sites.size()));
    if (fresh) sites.emplace_back().site = s;
    return it->second;
  }

  // Where the buffer can be cut into segments, ascending: the end of every sync after which each
  // buffered GPU activity that started before it had finished (the GPU drained), with later GPU records
  // already buffered and no host call still in flight across it. Cutting at every such point makes the
  // segments, and so the results, independent of how the stream was split into windows.
  std::vector<std::uint64_t> drained_cuts() const {
    std::vector<std::uint64_t> cuts;
    if (gpu.empty()) return cuts;
    std::vector<std::uint64_t> gpu_end_before(gpu.size() + 1, 0);  // max end of gpu[0..k)
    for (std::size_t k = 0; k < gpu.size(); ++k) gpu_end_before[k + 1] = std::max(gpu_end_before[k], gpu[k].end_ns);
    std::vector<std::uint64_t> host_end_before(host.size() + 1, 0);
    for (std::size_t k = 0; k < host.size(); ++k) host_end_before[k + 1] = std::max(host_end_before[k], host[k].end_ns);
    for (const HostCall& h : host) {
      if (!detail::is_blocking(h.kind)) continue;
      const std::uint64_t t = h.end_ns;
      if (!cuts.empty() && t <= cuts.back()) continue;
      const auto k = static_cast<std::size_t>(
          std::lower_bound(gpu.begin(), gpu.end(), t, [](const GpuActivity& g, std::uint64_t v) { return g.start_ns < v; }) -
          gpu.begin());
      if (k == gpu.size()) break;  // no GPU record after it yet: the records may still be coming
      if (gpu_end_before[k] <= h.start_ns || gpu_end_before[k] > t + detail::kSpanToleranceNs) continue;
      const auto j = static_cast<std::size_t>(
          std::lower_bound(host.begin(), host.end(), t, [](const HostCall& c, std::uint64_t v) { return c.start_ns < v; }) -
          host.begin());
      if (host_end_before[j] > t) continue;  // a call on another thread is still running
      cuts.push_back(t);
    }
    return cuts;
  }

  // Analyses host[h, ...) and gpu[g, ...) up to `cut` (exclusive) as one segment; returns the new
  // starts. The caller erases what was analysed.
  std::pair<std::size_t, std::size_t> analyse_segment(std::size_t h, std::size_t g, std::uint64_t cut) {
    const auto host_end = std::lower_bound(host.begin() + static_cast<std::ptrdiff_t>(h), host.end(), cut,
                                           [](const HostCall& c, std::uint64_t v) { return c.start_ns < v; });
    const auto gpu_end = std::lower_bound(gpu.begin() + static_cast<std::ptrdiff_t>(g), gpu.end(), cut,
                                          [](const GpuActivity& a, std::uint64_t v) { return a.start_ns < v; });
    const auto h1 = static_cast<std::size_t>(host_end - host.begin());
    const auto g1 = static_cast<std::size_t>(gpu_end - gpu.begin());
    if (h1 == h && g1 == g) return {h, g};
    Segment seg(std::vector<HostCall>(std::make_move_iterator(host.begin() + static_cast<std::ptrdiff_t>(h)),
                                      std::make_move_iterator(host_end)),
                std::vector<GpuActivity>(std::make_move_iterator(gpu.begin() + static_cast<std::ptrdiff_t>(g)),
                                         std::make_move_iterator(gpu_end)),
                carry);
    ++segments;
    gpu_idle_ns += seg.gpu_idle_ns();
    for (const auto& [id, d] : seg.sites()) {
      Agg& agg = id >= 0 ? sites[static_cast<std::size_t>(id)] : unknown_site;
      agg.calls += d.calls;
      agg.host_blocked_ns += d.blocked_ns;
      agg.gpu_idle_ns += d.idle_ns;
      agg.wait_bound_ns += d.wait_bound_ns;
      agg.read_bound_ns += d.read_bound_ns;
      agg.python_ns += d.python_ns;
      for (const auto& [api, n] : d.apis) agg.apis[api] += n;
      for (const auto& [rule, n] : d.rules) agg.rules[rule] += n;
    }
    // Replay: the baseline, every site that blocks in this segment, and every site still diverged.
    const Scenario before = baseline;
    std::map<std::int32_t, double> replayed_blocked;
    seg.replay(baseline, -1, Segment::Removal::Wait, &replayed_blocked);
    for (const auto& [id, ns] : replayed_blocked) sites[static_cast<std::size_t>(id)].replayed_blocked_ns += ns;
    std::vector<std::int32_t> ids;
    for (const auto& [id, d] : seg.sites())
      if (d.calls > 0 && id >= 0) ids.push_back(id);
    for (const auto& [key, s] : diverged) ids.push_back(key / 2);
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    for (std::int32_t id : ids)
      for (const auto how : {Segment::Removal::Wait, Segment::Removal::Read}) {
        const std::int32_t key = 2 * id + (how == Segment::Removal::Read ? 1 : 0);
        auto it = diverged.find(key);
        Scenario s = it != diverged.end() ? it->second : before;
        seg.replay(s, id, how);
        if (s.drained() && baseline.drained()) {
          // From here on the scenario is the baseline shifted earlier: bank the difference.
          saving_of(key) += baseline.end() - s.end();
          if (it != diverged.end()) diverged.erase(it);
        } else {
          diverged[key] = std::move(s);
        }
      }
    return {h1, g1};
  }

  double& saving_of(std::int32_t key) {
    Agg& agg = sites[static_cast<std::size_t>(key / 2)];
    return key % 2 ? agg.read_saving_ns : agg.saving_ns;
  }

  // Every what-if still ahead of the baseline banks its lead, as at the end of the run, and the next
  // segment starts them from the baseline again.
  void bank_diverged() {
    for (auto& [key, s] : diverged) saving_of(key) += baseline.end() - s.end();
    diverged.clear();
  }

  // Untraced spans cut the analysis: a segment ends where one begins, and the what-ifs bank their leads
  // there. Replayed across it, a what-if that had got ahead (a GPU-bound loop's reads removed: the host
  // far ahead of a GPU backlog) would run its backlog in the span's host time, where the traced stream
  // has no calls and no GPU records, and claim the span: with a second stretch a quarter of a second
  // after the first, the stand-in CUPTI's loop was estimated at 3.8 times its saving.
  void analyse_ready(bool everything) {
    std::vector<std::uint64_t> cuts = drained_cuts();
    if (everything || host.size() + gpu.size() > kMaxPendingEvents) cuts.push_back(std::numeric_limits<std::uint64_t>::max());
    // A span is a cut, at its start, once the events after it have arrived (or at the end): then every
    // traced event before it is here or analysed already.
    const std::uint64_t last_start = std::max(host.empty() ? 0 : host.back().start_ns, gpu.empty() ? 0 : gpu.back().start_ns);
    std::vector<std::uint64_t> gap_cuts;
    for (const auto& [from, to] : gaps)
      if (everything || to <= last_start) gap_cuts.push_back(from);
    std::sort(gap_cuts.begin(), gap_cuts.end());
    cuts.insert(cuts.end(), gap_cuts.begin(), gap_cuts.end());
    std::sort(cuts.begin(), cuts.end());
    cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
    std::pair<std::size_t, std::size_t> done{0, 0};
    for (const std::uint64_t cut : cuts) {
      done = analyse_segment(done.first, done.second, cut);
      if (std::binary_search(gap_cuts.begin(), gap_cuts.end(), cut)) bank_diverged();
    }
    host.erase(host.begin(), host.begin() + static_cast<std::ptrdiff_t>(done.first));
    gpu.erase(gpu.begin(), gpu.begin() + static_cast<std::ptrdiff_t>(done.second));
    std::erase_if(gaps, [&](const auto& g) { return std::binary_search(gap_cuts.begin(), gap_cuts.end(), g.first); });
  }
};

Accumulator::Accumulator() : state_(std::make_unique<State>()) {}
Accumulator::~Accumulator() = default;
Accumulator::Accumulator(Accumulator&&) noexcept = default;
Accumulator& Accumulator::operator=(Accumulator&&) noexcept = default;
Accumulator::Accumulator(const Accumulator& other) : state_(std::make_unique<State>(*other.state_)) {}
Accumulator& Accumulator::operator=(const Accumulator& other) {
  if (this != &other) state_ = std::make_unique<State>(*other.state_);
  return *this;
}

std::size_t Accumulator::pending_events() const { return state_->host.size() + state_->gpu.size(); }

void Accumulator::consume(const EventStream& chunk) { consume(EventStream(chunk)); }

void Accumulator::exclude(std::uint64_t from_ns, std::uint64_t to_ns) {
  state_->carry.idle.exclude(from_ns, to_ns);
  // Bounded: spans pile up only while no traced event comes after them, when no what-if is ahead either.
  if (state_->gaps.size() >= 256) state_->gaps.erase(state_->gaps.begin(), state_->gaps.begin() + 128);
  if (to_ns > from_ns) state_->gaps.emplace_back(from_ns, to_ns);
}

void Accumulator::consume(EventStream&& chunk) {
  State& st = *state_;
  ++st.windows;
  auto extend = [&st](std::uint64_t start, std::uint64_t end) {
    st.run_start_ns = std::min(st.run_start_ns, start);
    st.run_end_ns = std::max(st.run_end_ns, end);
  };
  if (chunk.run_start_ns != 0 || chunk.run_end_ns != 0) extend(chunk.run_start_ns ? chunk.run_start_ns : chunk.run_end_ns, chunk.run_end_ns);
  st.dropped += chunk.dropped_activity_records;
  if (chunk.callback_overhead_ns != 0) st.carry.callback_ns = static_cast<double>(chunk.callback_overhead_ns);
  std::vector<std::int32_t> ids(chunk.sites.size());
  for (std::size_t i = 0; i < chunk.sites.size(); ++i) ids[i] = st.site_id(chunk.sites[i]);
  const std::size_t host_before = st.host.size(), gpu_before = st.gpu.size();
  auto extend_events = [&](std::uint64_t start, std::uint64_t end) {
    extend(start, end);
    st.events_start_ns = std::min(st.events_start_ns, start);
    st.events_end_ns = std::max(st.events_end_ns, end);
  };
  for (const auto& h : chunk.host) extend_events(h.start_ns, std::max(h.start_ns, h.end_ns));
  for (const auto& g : chunk.gpu) extend_events(g.start_ns, std::max(g.start_ns, g.end_ns));
  for (HostCall& h : chunk.host) {
    if (h.end_ns < h.start_ns) h.end_ns = h.start_ns;
    h.site = h.site >= 0 && static_cast<std::size_t>(h.site) < ids.size() ? ids[static_cast<std::size_t>(h.site)] : -1;
    st.host.push_back(std::move(h));
  }
  for (GpuActivity& g : chunk.gpu) {
    if (g.end_ns < g.start_ns) g.end_ns = g.start_ns;
    st.gpu.push_back(std::move(g));
  }
  auto by_start = [](const auto& a, const auto& b) { return a.start_ns < b.start_ns; };
  if (!std::is_sorted(st.host.begin() + static_cast<std::ptrdiff_t>(host_before ? host_before - 1 : 0), st.host.end(), by_start))
    std::stable_sort(st.host.begin(), st.host.end(), by_start);
  if (!std::is_sorted(st.gpu.begin() + static_cast<std::ptrdiff_t>(gpu_before ? gpu_before - 1 : 0), st.gpu.end(), by_start))
    std::stable_sort(st.gpu.begin(), st.gpu.end(), by_start);
  // Python calls that made blocking calls: the host time inside them but outside their CUDA calls is
  // marked on those calls (a removed read takes it along), less the probe's own time after each CUDA call
  // (the program does not spend it unprobed). Only calls not analysed yet can be marked.
  for (const PythonCall& pc : chunk.python_calls) {
    if (pc.end_ns < pc.start_ns) continue;
    auto it = std::lower_bound(st.host.begin(), st.host.end(), pc.start_ns,
                               [](const HostCall& c, std::uint64_t v) { return c.start_ns < v; });
    HostCall* last = nullptr;
    std::uint64_t previous_end = pc.start_ns;
    for (; it != st.host.end() && it->start_ns < pc.end_ns; ++it) {
      if (it->thread != pc.thread || it->end_ns > pc.end_ns) continue;
      it->py_before_ns = it->start_ns - std::min(it->start_ns, previous_end);
      previous_end = std::max(previous_end, it->end_ns + it->probe_ns);
      last = &*it;
    }
    if (last != nullptr) last->py_after_ns = pc.end_ns - std::min(pc.end_ns, last->end_ns + last->probe_ns);
  }
  st.analyse_ready(false);
}

ProbeReport Accumulator::finish(RunInfo run) const {
  State st = *state_;
  st.analyse_ready(true);
  for (auto& [key, s] : st.diverged) st.saving_of(key) += st.baseline.end() - s.end();
  st.diverged.clear();

  ProbeReport r;
  if (run.wall_ms <= 0 && st.run_end_ns > st.run_start_ns)
    run.wall_ms = static_cast<double>(st.run_end_ns - st.run_start_ns) / 1e6;
  auto most = [](const std::map<std::string, std::uint64_t>& counts) {
    std::string best;
    std::uint64_t n = 0;
    for (const auto& [k, c] : counts)
      if (c > n) best = k, n = c;
    return best;
  };
  for (const auto& agg : st.sites) {
    if (agg.calls == 0) continue;
    SiteResult s;
    s.site = agg.site;
    s.api = most(agg.apis);
    s.rule_guess = most(agg.rules);
    s.calls = agg.calls;
    s.traced_calls = agg.calls;
    s.host_blocked_ms = agg.host_blocked_ns / 1e6;
    s.traced_host_blocked_ms = s.host_blocked_ms;
    s.gpu_idle_ms = agg.gpu_idle_ns / 1e6;
    // With the probe's own time taken out of the host's gaps, the replayed calls wait longer than the
    // recorded ones did (the GPU is further ahead of a faster host): their replayed time is what the
    // bounds and the scaling to untraced calls (add_untraced) rest on.
    const bool compensated = st.carry.callback_ns > 0;
    s.replayed_blocked_ms = (compensated ? agg.replayed_blocked_ns : agg.host_blocked_ns) / 1e6;
    const double longer_ns = compensated ? std::max(0.0, agg.replayed_blocked_ns - agg.host_blocked_ns) : 0.0;
    // The replay is monotone in theory; the bounds keep a modelling slip (multi-thread overlap,
    // unlinked activities) from ever claiming more than the removed time.
    s.wait_saving_ms = std::clamp(agg.saving_ns, 0.0, agg.wait_bound_ns + longer_ns) / 1e6;
    s.predicted_saving_ms = std::clamp(agg.read_saving_ns, 0.0, agg.read_bound_ns + longer_ns) / 1e6;
    s.saving_if_removed_ms = s.predicted_saving_ms;
    s.python_call_ms = agg.python_ns / 1e6;
    s.share_of_run = run.wall_ms > 0 ? s.predicted_saving_ms / run.wall_ms : 0.0;
    r.syncs += s.calls;
    r.host_blocked_ms += s.host_blocked_ms;
    r.sites.push_back(std::move(s));
  }
  r.syncs += st.unknown_site.calls;
  r.host_blocked_ms += st.unknown_site.host_blocked_ns / 1e6;
  sort_sites(r.sites);
  r.gpu_idle_ms = st.gpu_idle_ns / 1e6;
  r.dropped_activity_records = st.dropped;
  if (st.baseline.started && st.events_end_ns > st.events_start_ns)
    r.replay_error = (st.baseline.end() - st.baseline.clock.since_origin(st.events_end_ns)) /
                     static_cast<double>(st.events_end_ns - st.events_start_ns);
  r.windows = st.windows;
  if (run.callback_overhead_ns == 0) run.callback_overhead_ns = static_cast<std::uint64_t>(st.carry.callback_ns);
  r.run = run;
  r.runs = {std::move(run)};
  return r;
}

EventStream stretch_of(const EventStream& s, std::uint64_t from_ns, std::uint64_t to_ns, bool traced) {
  EventStream w;
  w.sites = s.sites;
  w.run_start_ns = from_ns;
  w.run_end_ns = to_ns;
  w.callback_overhead_ns = s.callback_overhead_ns;
  auto inside = [&](std::uint64_t t) { return t >= from_ns && t < to_ns; };
  for (const auto& h : s.host)
    if (inside(h.start_ns) && (traced || detail::is_blocking(h.kind))) w.host.push_back(h);
  if (!traced) return w;
  for (const auto& g : s.gpu)
    if (inside(g.start_ns)) w.gpu.push_back(g);
  for (const auto& c : s.python_calls)
    if (inside(c.start_ns)) w.python_calls.push_back(c);
  return w;
}

void UntracedCalls::add(const EventStream& chunk) {
  for (const auto& h : chunk.host) {
    if (!detail::is_blocking(h.kind)) continue;
    const double d = static_cast<double>(h.end_ns - h.start_ns);
    if (h.site < 0 || static_cast<std::size_t>(h.site) >= chunk.sites.size()) {
      ++unknown_calls;
      unknown_blocked_ns += d;
      continue;
    }
    const Site& site = chunk.sites[static_cast<std::size_t>(h.site)];
    const auto key = std::tuple(site.path, site.line, site.function);
    auto [it, fresh] = sites.emplace(key, std::pair(site, std::uint64_t{0}));
    ++it->second.second;
    ++apis[key][h.api];
    blocked_ns[key] += d;
  }
}

void add_untraced(ProbeReport& r, const UntracedCalls& u, double traced_ns, double total_ns) {
  r.sampled_fraction = total_ns > 0 ? std::clamp(traced_ns / total_ns, 0.0, 1.0) : 1.0;
  for (const auto& [key, entry] : u.sites) {
    const auto& [site, calls] = entry;
    const double blocked_ms = u.blocked_ns.at(key) / 1e6;
    auto it = std::find_if(r.sites.begin(), r.sites.end(), [&](const SiteResult& s) {
      return std::tie(s.site.path, s.site.line, s.site.function) == key;
    });
    if (it == r.sites.end()) {
      SiteResult s;
      s.site = site;
      const auto& apis = u.apis.at(key);
      s.api = std::max_element(apis.begin(), apis.end(), [](const auto& a, const auto& b) { return a.second < b.second; })->first;
      r.sites.push_back(std::move(s));
      it = std::prev(r.sites.end());
    }
    // it->calls and it->host_blocked_ms are the traced calls' here (the report of the traced windows).
    const double per_call = it->calls > 0 ? static_cast<double>(it->calls + calls) / static_cast<double>(it->calls) : 0.0;
    // The traced calls' blocked time as replayed (the program's pace, without the probe's callbacks)
    // against the untraced calls' recorded one, which had none of them around their launches.
    const double traced_blocked = it->replayed_blocked_ms > 0 ? it->replayed_blocked_ms : it->host_blocked_ms;
    const double per_blocked = traced_blocked > 0 ? (traced_blocked + blocked_ms) / traced_blocked : per_call;
    const double rest = std::max(it->predicted_saving_ms - it->wait_saving_ms, 0.0);  // not waiting: per call
    it->predicted_saving_ms = std::min(it->wait_saving_ms, it->predicted_saving_ms) * per_blocked + rest * per_call;
    it->saving_if_removed_ms = it->predicted_saving_ms;
    it->wait_saving_ms *= per_blocked;
    it->gpu_idle_ms *= per_blocked;
    it->python_call_ms *= per_call;
    it->calls += calls;
    it->host_blocked_ms += blocked_ms;
    it->replayed_blocked_ms = traced_blocked + blocked_ms;
    r.syncs += calls;
    r.host_blocked_ms += blocked_ms;
  }
  r.syncs += u.unknown_calls;
  r.host_blocked_ms += u.unknown_blocked_ns / 1e6;
  if (traced_ns > 0 && total_ns > traced_ns) r.gpu_idle_ms *= total_ns / traced_ns;
  for (auto& s : r.sites) s.share_of_run = r.run.wall_ms > 0 ? s.predicted_saving_ms / r.run.wall_ms : 0.0;
  sort_sites(r.sites);
}

void sort_sites(std::vector<SiteResult>& sites) {
  std::stable_sort(sites.begin(), sites.end(), [](const SiteResult& a, const SiteResult& b) {
    if (a.predicted_saving_ms != b.predicted_saving_ms) return a.predicted_saving_ms > b.predicted_saving_ms;
    if (a.host_blocked_ms != b.host_blocked_ms) return a.host_blocked_ms > b.host_blocked_ms;
    return std::tie(a.site.path, a.site.line, a.site.function) < std::tie(b.site.path, b.site.line, b.site.function);
  });
}

ProbeReport analyze(const EventStream& stream, RunInfo run) {
  Accumulator acc;
  acc.consume(stream);
  return acc.finish(std::move(run));
}

}  // namespace synclint::probe
