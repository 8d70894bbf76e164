#include "analysis/gpu_model.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <iterator>
#include <tuple>

namespace synclint::probe {
namespace {

// The GPU work of one call: its first activity (its index in `gpu`), and, where it has several records (a
// CUDA graph's kernels, a copy in pieces), when the last ends and how many there are.
struct CallWork {
  std::size_t first = 0;
  std::uint64_t last_end_ns = 0;
  std::size_t records = 0;
};

std::unordered_map<std::uint64_t, CallWork> activity_by_correlation(const std::vector<GpuActivity>& gpu) {
  std::unordered_map<std::uint64_t, CallWork> work;
  for (std::size_t a = 0; a < gpu.size(); ++a) {
    if (gpu[a].correlation_id == 0) continue;
    CallWork& w = work.try_emplace(gpu[a].correlation_id, CallWork{a}).first->second;
    w.last_end_ns = std::max(w.last_end_ns, gpu[a].end_ns);
    ++w.records;
  }
  return work;
}

bool queues_work(const HostCall& h) {
  return h.launch_key != 0 && (h.kind == HostCallKind::Launch || h.kind == HostCallKind::AsyncCopy ||
                               h.kind == HostCallKind::BlockingCopy || h.kind == HostCallKind::Other);
}

GpuActivityKind kind_of(const HostCall& h) {
  if (h.kind == HostCallKind::Launch) return GpuActivityKind::Kernel;
  if (h.kind == HostCallKind::AsyncCopy || h.kind == HostCallKind::BlockingCopy) return GpuActivityKind::Memcpy;
  return GpuActivityKind::Memset;
}

// The name of a copy's GPU record, as CUPTI's are named in the probe, from its launch family: the
// analysis reads a read's direction from it (a device-to-host copy before a sync feeds the read).
std::string copy_name(std::uint64_t family) {
  for (std::uint64_t k = 0; k < std::size(kCopyRecordNames); ++k)
    if (family == copy_family(k)) return kCopyRecordNames[k];
  return "memcpy";
}

}  // namespace

void GpuModel::Samples::add(double x) {
  if (v.size() < kSamples) {
    v.push_back(x);
  } else {
    v[next] = x;
    next = (next + 1) % kSamples;
  }
}

double GpuModel::Samples::value(double fallback) const {
  if (v.empty()) return fallback;
  std::vector<double> s = v;
  auto mid = s.begin() + static_cast<std::ptrdiff_t>(s.size() / 2);
  std::nth_element(s.begin(), mid, s.end());
  return *mid;
}

double GpuModel::duration_ns(std::uint64_t launch_key) const {
  auto it = work_.find(launch_key);
  return it == work_.end() ? 0 : it->second.duration.value(0);
}

void GpuModel::note_ready(const StreamKey& key, double ready) {
  auto [it, added] = ready_.try_emplace(key, ready);
  if (!added) it->second = std::max(it->second, ready);
}

void GpuModel::learn(const EventStream& chunk) {
  if (chunk.gpu.empty()) return;
  const auto activity_of = activity_by_correlation(chunk.gpu);
  // The end of the activity before each one on its stream (records are sorted by start).
  std::vector<double> before(chunk.gpu.size(), 0);
  std::map<StreamKey, double> last;
  for (std::size_t a = 0; a < chunk.gpu.size(); ++a) {
    const GpuActivity& g = chunk.gpu[a];
    const StreamKey key{g.device, g.stream};
    auto it = ready_.find(key);
    double& end = last.try_emplace(key, it != ready_.end() ? it->second : kNever).first->second;
    before[a] = end;
    end = std::max(end, at(g.end_ns));
  }
  for (const auto& [key, end] : last) note_ready(key, end);

  std::vector<double> ends;  // every activity's end, sorted: what a waiting sync waited for
  ends.reserve(chunk.gpu.size());
  for (const auto& g : chunk.gpu) ends.push_back(at(g.end_ns));
  std::sort(ends.begin(), ends.end());

  // Work whose stream was busy when its launch call began: (the call's return, the end of the work
  // before it, its start).
  std::vector<std::tuple<double, double, double>> queued;
  for (const HostCall& h : chunk.host) {
    if (h.gpu_modelled) continue;
    const double start = at(h.start_ns), end = at(h.end_ns);
    if (queues_work(h)) {
      auto it = h.correlation_id != 0 ? activity_of.find(h.correlation_id) : activity_of.end();
      if (it == activity_of.end()) continue;
      const CallWork& cw = it->second;
      const GpuActivity& g = chunk.gpu[cw.first];
      if (g.start_ns < h.start_ns) continue;
      const double duration = at(cw.last_end_ns) - at(g.start_ns);  // from its first record's start to its last's end
      Work& w = work_[h.launch_key];
      w.duration.add(duration);
      w.name = cw.records > 1 && g.kind == GpuActivityKind::Kernel ? "graph of " + std::to_string(cw.records) + " kernels" : g.name;
      w.kind = g.kind;
      kind_duration_[static_cast<std::uint32_t>(g.kind)].add(duration);
      if (h.launch_family != 0) family_duration_[h.launch_family].add(duration);
      const StreamKey key{g.device, g.stream};
      ++streams_[h.stream_handle][key];
      ++stream_use_[key];
      // Queued on an idle stream: how long after its launch call returned the work started. From the
      // return, not the call's start: work starts about 1 us after its call returns on the H200, also
      // when the call took 25 us (a copy, a first launch), so a latency from the start would vary tenfold.
      if (before[cw.first] <= start) latency_.add(at(g.start_ns) - end);
      else if (at(g.start_ns) >= before[cw.first]) queued.emplace_back(end, before[cw.first], at(g.start_ns));
    } else if ((h.kind == HostCallKind::StreamSynchronize || h.kind == HostCallKind::DeviceSynchronize) &&
               h.descheduled_ns <= kDescheduledFloorNs) {  // one descheduled inside returned late: not learned
      // The GPU's last work before its return: ended inside it, it waited and returned this long after;
      // ended before it began, the sync took only its own time (5-13 us on the H200 with the launch
      // callbacks on, where 1 us was assumed: a sync that found the GPU done then looked as if it waited).
      auto e = std::upper_bound(ends.begin(), ends.end(), end);
      if (e == ends.begin()) continue;
      const double last = *std::prev(e);
      if (last > start) return_.add(end - last);
      else sync_work_.add(end - start);
    }
  }
  // Queued behind work that was still running after the call's return plus the latency: how long after
  // that work the GPU started it (about 1 us on the H200; modelled back to back, the work hid the small
  // gaps that a waiting sync is charged for: the GPU idle after the norms reads came out up to 48% low).
  const double latency = latency_.value(kDefaultLatencyNs);
  for (const auto& [ret, prev_end, begin] : queued)
    if (prev_end > ret + latency) queue_gap_.add(begin - prev_end);
}

GpuModel::StreamKey GpuModel::stream_for(std::uint64_t handle) const {
  const std::map<StreamKey, std::uint64_t>* seen = nullptr;
  if (auto it = streams_.find(handle); it != streams_.end()) seen = &it->second;
  else if (!stream_use_.empty()) seen = &stream_use_;
  if (seen == nullptr) return {0, 0};
  return std::max_element(seen->begin(), seen->end(), [](const auto& a, const auto& b) { return a.second < b.second; })
      ->first;
}

void GpuModel::fit(Queue& q, double target, double gap, std::vector<GpuActivity>& gpu) {
  if (q.pending.empty()) return;
  // The pending work re-timed with the learned durations scaled by `known`, those of kernels (and graphs)
  // never seen by `unknown` (the others among them, `takes` false, keep theirs) and those of copies and
  // memsets never seen by `copies`, each activity starting no sooner than its launch allows; returns when
  // the last ends.
  auto simulate = [&](double known, double unknown, double copies, bool write) {
    double t = q.base;
    for (const Pending& p : q.pending) {
      const double start = std::max(p.earliest, t + gap);
      t = start + (p.known ? known : p.copy ? copies : p.takes ? unknown : 1.0) * p.duration;
      if (write) {
        gpu[p.index].start_ns = ns_at(start);
        gpu[p.index].end_ns = ns_at(t);
      }
    }
    return t;
  };
  // The smallest factor in [lo, hi] for which `ends(factor)` reaches the target (hi when none does).
  auto solve = [&](double lo, double hi, auto ends) {
    for (int i = 0; i < 50; ++i) {
      const double mid = (lo + hi) / 2;
      (ends(mid) < target ? lo : hi) = mid;
    }
    return hi;
  };
  auto any = [&](auto pred) { return std::any_of(q.pending.begin(), q.pending.end(), pred); };
  const bool unseen_kernels = any([](const Pending& p) { return !p.known && !p.copy; });
  const bool unseen_copies = any([](const Pending& p) { return !p.known && p.copy; });
  if (q.ready < target) {
    // Of the kernels (and graphs) never seen, those that take what the sync shows beyond the modelled
    // work: those that could start within that much of the last one's earliest start. A sync that waited
    // `w` after the last launch found work queued that long; the simplest account of it is work launched
    // in about the last `w` of the host's launches, not all of the interval's. Spread over every launch
    // (as until 2026-12-02), it kept the modelled GPU busy through the middle of a Python step where the
    // real one idled (run 8's recording: 162 us of 1,277), and the reads' savings, that idle filled, came
    // out a third to three quarters low. In a GPU-bound loop `w` spans every launch and they all share it.
    const auto last = std::find_if(q.pending.rbegin(), q.pending.rend(), [](const Pending& p) { return !p.known && !p.copy; });
    if (last != q.pending.rend()) {
      const double from = last->earliest - std::max(0.0, target - last->earliest);
      for (Pending& p : q.pending) p.takes = p.earliest >= from;
    }
    // The work took longer than modelled. Work never seen had only a guessed duration: it takes the
    // difference first, the kernels launched last (`takes`, above) before copies (a read's copy of a
    // scalar takes a few us: without any GPU records, a GPU-bound loop of one kernel a step had its reads'
    // copies stretched to half the step, and their savings estimated 12 times too high); then every
    // learned duration stretches by one factor.
    // The factor for one class of durations: 1 when the work reaches the target already, else the
    // smallest that makes it (kMaxFactor when none does).
    auto stretch = [&](auto ends) { return ends(1.0) >= target ? 1.0 : solve(1, kMaxFactor, ends); };
    const double unknown = unseen_kernels ? stretch([&](double f) { return simulate(1, f, 1, false); }) : 1;
    const double copies = unseen_copies ? stretch([&](double f) { return simulate(1, unknown, f, false); }) : 1;
    const double known = stretch([&](double f) { return simulate(f, unknown, copies, false); });
    q.ready = simulate(known, unknown, copies, true);
    ++fits_.longer;
    fits_.log_longer += std::log(known);
  } else if (q.ready > target && simulate(0, 0, 0, false) < target) {
    // The work took less time than modelled: one factor for every duration.
    const double f = solve(0, 1, [&](double x) { return simulate(x, x, x, false); });
    q.ready = simulate(f, f, f, true);
    ++fits_.shorter;
    fits_.log_shorter += std::log(std::max(f, 1e-9));
  } else if (q.ready > target) {
    ++fits_.moved;
    // Even without durations the launches plus the learned latency end too late (that latency varies):
    // move the last activities earlier, back to back, as far as their launch calls allow, and shorten
    // what still does not fit.
    double limit = target;
    for (auto p = q.pending.rbegin(); p != q.pending.rend(); ++p) {
      GpuActivity& g = gpu[p->index];
      if (at(g.end_ns) <= limit) break;
      const double start = std::min(limit, std::max(p->launch, limit - p->duration));
      g.start_ns = ns_at(start);
      g.end_ns = ns_at(limit);
      limit = start;
    }
    q.ready = target;
  }
  q.pending.clear();
}

std::size_t GpuModel::synthesize(EventStream& chunk) {
  if (std::none_of(chunk.host.begin(), chunk.host.end(), [](const HostCall& h) { return h.gpu_modelled; })) return 0;
  const double latency = latency_.value(kDefaultLatencyNs), back = return_.value(kDefaultReturnNs),
               own = sync_work_.value(kSyncWorkNs), gap = queue_gap_.value(0);
  std::map<StreamKey, Queue> queues;
  auto queue = [&](StreamKey key) -> Queue& {
    auto [it, added] = queues.try_emplace(key);
    if (added) {
      auto r = ready_.find(key);
      it->second.ready = r != ready_.end() ? r->second : kNever;
    }
    return it->second;
  };
  // A sync from `start` to `end`: the stream had drained by its return (less the return latency), and if
  // it took longer than that latency and a sync's own work, it waited: the stream drained just then. A
  // sync whose thread waited `off` ns for a CPU inside it may have returned up to that much later than the
  // GPU let it: the stream drained between `end - back - off` and `end - back`, and modelled work that
  // ends in between stays as it is (without this, a preempted thread's late return was read as GPU work,
  // and the reads' savings came out twenty times too low on an overloaded host).
  auto anchor = [&](Queue& q, double start, double end, double off) {
    const double drained = std::max(start, end - back);
    const double earliest = std::max(start, drained - off);
    if (q.ready > drained) fit(q, drained, gap, chunk.gpu);
    else if (end - start - off > back + own && q.ready < earliest) fit(q, earliest, gap, chunk.gpu);
    else q.pending.clear();
  };
  const std::size_t before = chunk.gpu.size();
  for (const HostCall& h : chunk.host) {
    if (!h.gpu_modelled) continue;
    const double start = at(h.start_ns), end = at(h.end_ns), off = static_cast<double>(h.descheduled_ns);
    if (queues_work(h)) {
      const StreamKey key = stream_for(h.stream_handle);
      Queue& q = queue(key);
      GpuActivity g;
      g.kind = kind_of(h);
      g.name = g.kind == GpuActivityKind::Kernel   ? std::string("kernel")
               : g.kind == GpuActivityKind::Memcpy ? copy_name(h.launch_family)
                                                   : std::string("memset");
      double duration = 0;
      bool known = true;
      if (auto w = work_.find(h.launch_key); w != work_.end()) {
        duration = w->second.duration.value(0);
        g.name = w->second.name;
        g.kind = w->second.kind;
      } else {  // never seen: its family's durations (the same kernel, other sizes), else its kind's
        ++unknown_work_;
        known = false;
        auto f = h.launch_family != 0 ? family_duration_.find(h.launch_family) : family_duration_.end();
        auto k = kind_duration_.find(static_cast<std::uint32_t>(g.kind));
        duration = f != family_duration_.end() ? f->second.value(0)
                   : k != kind_duration_.end() ? k->second.value(kGuessedDurationNs)
                                               : kGuessedDurationNs;
      }
      g.name += " (modelled)";
      const double earliest = std::max(start, end + latency);
      if (q.pending.empty()) q.base = q.ready;
      const double begin = std::max(earliest, q.ready + gap);
      g.start_ns = ns_at(begin);
      g.end_ns = ns_at(begin + duration);
      g.device = key.first;
      g.stream = key.second;
      g.correlation_id = h.correlation_id;
      q.pending.push_back({chunk.gpu.size(), start, earliest, duration, known,
                           g.kind == GpuActivityKind::Memcpy || g.kind == GpuActivityKind::Memset});
      q.ready = begin + duration;
      chunk.gpu.push_back(std::move(g));
      ++modelled_;
      if (h.kind == HostCallKind::BlockingCopy) anchor(q, start, end, off);
    } else if (h.kind == HostCallKind::StreamSynchronize) {
      anchor(queue(stream_for(h.stream_handle)), start, end, off);
    } else if (h.kind == HostCallKind::DeviceSynchronize) {
      for (auto& [key, q] : queues) anchor(q, start, end, off);
    }
  }
  for (const auto& [key, q] : queues) note_ready(key, q.ready);
  std::stable_sort(chunk.gpu.begin(), chunk.gpu.end(),
                   [](const GpuActivity& a, const GpuActivity& b) { return a.start_ns < b.start_ns; });
  return chunk.gpu.size() - before;
}

EventStream recording_as_modelled(const EventStream& s, std::uint64_t from_ns) {
  EventStream out = s;
  const auto activity_of = activity_by_correlation(s.gpu);
  // A recording made with launch keys keeps them (and the stream handles); older ones get keys from the
  // names of the calls' GPU work.
  const bool recorded_keys = std::any_of(s.host.begin(), s.host.end(), [](const HostCall& h) { return h.launch_key != 0; });
  for (HostCall& h : out.host) {
    h.gpu_modelled = h.start_ns >= from_ns;
    auto it = h.correlation_id != 0 ? activity_of.find(h.correlation_id) : activity_of.end();
    if (it == activity_of.end()) continue;
    const GpuActivity& g = s.gpu[it->second.first];
    if (!recorded_keys) {
      h.launch_key = h.launch_family = std::hash<std::string>{}(g.name) | 1;
      h.stream_handle = 0;
    }
    // A copy's family is its direction, which the probe hands over and older recordings did not keep
    // apart (or keep at all): the record names it.
    if (g.kind == GpuActivityKind::Memcpy)
      for (std::uint64_t k = 0; k < std::size(kCopyRecordNames); ++k)
        if (g.name == kCopyRecordNames[k] && h.launch_family != copy_family(k)) {
          h.launch_key = key_mix(h.launch_key, k) | 1;
          h.launch_family = copy_family(k);
        }
  }
  std::erase_if(out.gpu, [&](const GpuActivity& g) { return g.start_ns >= from_ns; });
  return out;
}

}  // namespace synclint::probe
