#include "analysis/replay.h"

#include <algorithm>
#include <cctype>
#include <limits>
#include <string_view>
#include <unordered_map>

namespace synclint::probe::detail {
namespace {

bool contains_nocase(std::string_view text, std::string_view needle) {
  return std::search(text.begin(), text.end(), needle.begin(), needle.end(), [](char a, char b) {
           return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
         }) != text.end();
}

enum class Direction { Unknown, DeviceToHost, HostToDevice, Other };

Direction copy_direction(const HostCall* call, const GpuActivity* act) {
  for (std::string_view text : {act ? std::string_view(act->name) : std::string_view(),
                                call ? std::string_view(call->api) : std::string_view()}) {
    if (contains_nocase(text, "dtoh") || contains_nocase(text, "d2h") || contains_nocase(text, "devicetohost"))
      return Direction::DeviceToHost;
    if (contains_nocase(text, "htod") || contains_nocase(text, "h2d") || contains_nocase(text, "hosttodevice"))
      return Direction::HostToDevice;
    if (contains_nocase(text, "dtod") || contains_nocase(text, "htoh") || contains_nocase(text, "ptop") ||
        contains_nocase(text, "peer"))
      return Direction::Other;
  }
  return Direction::Unknown;
}

std::string rule_for(Direction d) {
  switch (d) {
    case Direction::DeviceToHost: return "SYNC001|SYNC003";  // a device-to-host read: .item(), .cpu(), ...
    case Direction::HostToDevice: return "SYNC011";          // .to(device) without non_blocking
    default: return "";
  }
}

}  // namespace

bool is_blocking(HostCallKind kind) {
  return kind == HostCallKind::StreamSynchronize || kind == HostCallKind::DeviceSynchronize ||
         kind == HostCallKind::EventSynchronize || kind == HostCallKind::BlockingCopy;
}

std::string guess_rule(const HostCall& sync, const GpuActivity* own_copy, const HostCall* previous,
                       const GpuActivity* previous_copy) {
  switch (sync.kind) {
    case HostCallKind::DeviceSynchronize:
    case HostCallKind::EventSynchronize:
      // An explicit synchronize; an implicit one (cudaFree, cudaMalloc under memory pressure) is unsure.
      return contains_nocase(sync.api, "synchronize") ? "SYNC007" : "";
    case HostCallKind::BlockingCopy: return rule_for(copy_direction(&sync, own_copy));
    case HostCallKind::StreamSynchronize:
      if (previous && previous->site == sync.site &&
          (previous->kind == HostCallKind::AsyncCopy || previous->kind == HostCallKind::BlockingCopy ||
           contains_nocase(previous->api, "memcpy")))
        return rule_for(copy_direction(previous, previous_copy));
      return "SYNC007";  // a stream synchronize with no copy before it: Stream.synchronize()
    default: return "";
  }
}

double Scenario::end() const {
  double e = frontier_rep;
  for (const auto& [key, st] : streams) e = std::max(e, st.ready);
  return e;
}

bool Scenario::drained() const {
  for (const auto& [key, st] : streams)
    if (st.ready > frontier_rep || st.last_end > frontier_rep) return false;
  return true;
}

Segment::Segment(std::vector<HostCall> host, std::vector<GpuActivity> gpu, RecordedCarry& carry)
    : host_(std::move(host)), gpu_(std::move(gpu)), callback_ns_(carry.callback_ns) {
  prepare(carry);
  carry.idle.feed(host_, gpu_, [&](const IdleGap& gap) {
    const double length = static_cast<double>(gap.end_ns - gap.start_ns);
    gpu_idle_ns_ += length;
    if (gap.site >= 0) deltas_[gap.site].idle_ns += length;
  });
}

void Segment::prepare(RecordedCarry& carry) {
  // Link activities to the host calls that queued them.
  std::unordered_map<std::uint64_t, std::size_t> call_of;
  for (std::size_t i = 0; i < host_.size(); ++i)
    if (host_[i].correlation_id != 0) call_of.emplace(host_[i].correlation_id, i);
  calls_.resize(host_.size());
  acts_.resize(gpu_.size());
  for (std::size_t i = 0; i < host_.size(); ++i) calls_[i].host = i;
  for (std::size_t a = 0; a < gpu_.size(); ++a) {
    acts_[a].key = {gpu_[a].device, gpu_[a].stream};
    acts_[a].duration = static_cast<double>(gpu_[a].end_ns - gpu_[a].start_ns);
    auto it = gpu_[a].correlation_id ? call_of.find(gpu_[a].correlation_id) : call_of.end();
    if (it != call_of.end() && host_[it->second].start_ns <= gpu_[a].start_ns) {
      acts_[a].linked = true;
      Call& c = calls_[it->second];
      if (c.last_act >= 0) acts_[static_cast<std::size_t>(c.last_act)].next = static_cast<std::int64_t>(a);
      else c.first_act = static_cast<std::int64_t>(a);
      c.last_act = static_cast<std::int64_t>(a);
    } else {
      unlinked_[acts_[a].key].push_back(a);
    }
  }

  // Launch-to-start latency: an activity launched while its stream was idle started `latency` after
  // its launch; one launched behind queued work started `gap` after the work before it.
  std::vector<std::int64_t> launch_of(gpu_.size(), -1);
  for (const auto& c : calls_)
    for (auto a = c.first_act; a >= 0; a = acts_[static_cast<std::size_t>(a)].next)
      launch_of[static_cast<std::size_t>(a)] = static_cast<std::int64_t>(c.host);
  {
    std::map<StreamKey, std::uint64_t> prev_end(carry.last_end.begin(), carry.last_end.end());  // earlier segments
    for (std::size_t a = 0; a < gpu_.size(); ++a) {
      auto& act = acts_[a];
      const auto& g = gpu_[a];
      auto pe = prev_end.find(act.key);
      const std::uint64_t before = pe != prev_end.end() ? pe->second : 0;
      if (act.linked) {
        const HostCall& call = host_[static_cast<std::size_t>(launch_of[a])];
        const std::uint64_t launch = call.start_ns;
        // Queued behind earlier work: that work was still running when the launch call returned. Work
        // that ended inside the call (a slow launch, a copy call) held nothing up: the activity could
        // not start before the call returned anyway, and a gap counted from that work's end would keep
        // the call's time as GPU idle in every replay, even where the what-if queues it behind a backlog.
        if (before > call.end_ns) {
          act.gap = g.start_ns > before ? static_cast<double>(g.start_ns - before) : 0.0;
          act.latency = -1;  // the device floor, filled below
        } else {
          act.latency = static_cast<double>(g.start_ns - launch);
          auto [it, fresh] = carry.latency_floor.emplace(g.device, act.latency);
          if (!fresh) it->second = std::min(it->second, act.latency);
        }
      }
      prev_end[act.key] = std::max(before, g.end_ns);
    }
    for (std::size_t a = 0; a < gpu_.size(); ++a)
      if (acts_[a].latency < 0) {
        auto it = carry.latency_floor.find(gpu_[a].device);
        acts_[a].latency = it != carry.latency_floor.end() ? it->second : 0.0;
      }
  }

  // Shortest observed duration of each blocking API (its non-waiting overhead, at most the default).
  for (const auto& h : host_)
    if (is_blocking(h.kind)) {
      const double d = static_cast<double>(h.end_ns - h.start_ns);
      auto [it, fresh] = carry.api_min_ns.emplace(h.api, d);
      if (!fresh) it->second = std::min(it->second, d);
    }

  // Recorded pass in host order: which streams each sync waited for, its wake-up latency, and the
  // per-site deltas (calls, blocked time, rule guess).
  std::map<std::uint32_t, std::size_t> previous_on_thread;  // index of the thread's previous call
  std::map<std::uint32_t, const GpuActivity*> previous_copy_on_thread;
  for (auto& c : calls_) {
    const HostCall& h = host_[c.host];
    const GpuActivity* own = nullptr;
    for (auto i = c.first_act; i >= 0; i = acts_[static_cast<std::size_t>(i)].next) {
      const auto a = static_cast<std::size_t>(i);
      auto& end = carry.last_end[acts_[a].key];
      end = std::max(end, gpu_[a].end_ns);
      carry.last_launch_stream = acts_[a].key;
      own = &gpu_[a];
    }
    if (is_blocking(h.kind)) {
      c.blocking = true;
      std::uint64_t waited_until = 0;
      c.waits_begin = static_cast<std::uint32_t>(waits_.size());
      for (const auto& [key, end] : carry.last_end) {
        // Work that ended after the call returned was not waited for (an implicit synchronization
        // such as cudaFree, or another device): the call can wait only for what was done by then.
        if (end > h.end_ns + kSpanToleranceNs) continue;
        const bool waited = end > h.start_ns;
        if (h.kind == HostCallKind::DeviceSynchronize || waited) {
          waits_.push_back(key);
          if (waited) waited_until = std::max(waited_until, end);
        }
      }
      // Nothing waited for in the recording: the call still waits for the stream used last, in
      // replays where that stream is behind, unless that stream was still busy when the call returned.
      if (waits_.size() == c.waits_begin && carry.last_launch_stream &&
          carry.last_end[*carry.last_launch_stream] <= h.end_ns + kSpanToleranceNs)
        waits_.push_back(*carry.last_launch_stream);
      c.waits_end = static_cast<std::uint32_t>(waits_.size());
      const double duration = static_cast<double>(h.end_ns - h.start_ns);
      c.removed_overhead = std::min(carry.api_min_ns[h.api], kDefaultSyncOverheadNs);
      if (waited_until > 0) {
        c.kept_overhead = std::min(duration, c.removed_overhead);
        c.wake = waited_until < h.end_ns ? static_cast<double>(h.end_ns - waited_until) : 0.0;
        c.descheduled = std::max(0.0, c.wake - kMaxWakeNs);
      } else {
        c.kept_overhead = duration;
        c.wake = c.removed_overhead;
      }
      // Measured: the thread waited this long for a CPU inside the call, beyond an ordinary wake-up.
      if (static_cast<double>(h.descheduled_ns) > kDescheduledFloorNs)
        c.descheduled = std::max(c.descheduled, std::min(static_cast<double>(h.descheduled_ns),
                                                         std::max(0.0, duration - c.removed_overhead)));
      {
        auto& d = deltas_[h.site >= 0 ? h.site : -1];
        ++d.calls;
        d.blocked_ns += duration;
        d.wait_bound_ns += std::max(0.0, duration - c.removed_overhead - c.descheduled);
        const double python = static_cast<double>(h.py_before_ns + h.py_after_ns);
        d.python_ns += python;
        d.read_bound_ns += duration - c.descheduled + python;
        ++d.apis[h.api];
        auto prev = previous_on_thread.find(h.thread);
        auto prev_copy = previous_copy_on_thread.find(h.thread);
        const HostCall* previous = prev != previous_on_thread.end() ? &host_[prev->second] : nullptr;
        const GpuActivity* previous_copy = prev_copy != previous_copy_on_thread.end() ? prev_copy->second : nullptr;
        ++d.rules[guess_rule(h, own, previous, previous_copy)];
        if (previous && h.site >= 0 && previous->site == h.site && previous->kind == HostCallKind::AsyncCopy &&
            copy_direction(previous, previous_copy) == Direction::DeviceToHost) {
          calls_[prev->second].feeds_read = true;
          const double copy_python = static_cast<double>(previous->py_before_ns + previous->py_after_ns);
          d.python_ns += copy_python;
          d.read_bound_ns += static_cast<double>(previous->end_ns - previous->start_ns) + copy_python;
          for (auto i = calls_[prev->second].first_act; i >= 0; i = acts_[static_cast<std::size_t>(i)].next)
            d.read_bound_ns += acts_[static_cast<std::size_t>(i)].duration;
        }
      }
    }
    previous_on_thread[h.thread] = c.host;
    previous_copy_on_thread[h.thread] = own;
  }
}

void IdleTracker::feed(const std::vector<HostCall>& host, const std::vector<GpuActivity>& gpu,
                       const std::function<void(const IdleGap&)>& on_gap) {
  // Blocking calls in start order, to find the one waiting when a device ran out of work.
  std::vector<std::size_t> blocking;
  for (std::size_t i = 0; i < host.size(); ++i)
    if (is_blocking(host[i].kind)) blocking.push_back(i);
  auto waiting_at = [&](std::uint64_t t, Busy& busy) {
    busy.site = -1;
    busy.api.clear();
    busy.wait_ns = 0;
    auto it = std::upper_bound(blocking.begin(), blocking.end(), t,
                               [&](std::uint64_t v, std::size_t i) { return v < host[i].start_ns; });
    for (int back = 0; back < 16 && it != blocking.begin(); ++back) {
      --it;
      const HostCall& h = host[*it];
      if (h.end_ns + kSpanToleranceNs >= t) {
        busy.site = h.site;
        busy.api = h.api;
        busy.wait_ns = t > h.start_ns ? t - h.start_ns : 0;
        return;
      }
    }
  };
  std::map<std::uint32_t, bool> touched;  // devices whose busy period ended in this window
  for (const auto& g : gpu) {
    auto [it, fresh] = busy_.emplace(g.device, Busy{});
    Busy& busy = it->second;
    const bool untraced_between = std::any_of(excluded_.begin(), excluded_.end(), [&](const auto& x) {
      return !fresh && x.first < g.start_ns && x.second > busy.until;
    });
    if (!fresh && g.start_ns > busy.until && !untraced_between) {
      if (touched[g.device]) waiting_at(busy.until, busy);
      const std::uint64_t split =
          busy.site >= 0 || !busy.api.empty() ? std::min(g.start_ns, busy.until + busy.wait_ns) : busy.until;
      if (split > busy.until) on_gap(IdleGap{g.device, busy.until, split, busy.site, busy.api});
      if (g.start_ns > split) on_gap(IdleGap{g.device, split, g.start_ns, -1, {}});
    }
    if (fresh || g.end_ns > busy.until) {
      busy.until = std::max(busy.until, g.end_ns);
      touched[g.device] = true;
    }
  }
  for (auto& [device, busy] : busy_)
    if (touched[device]) waiting_at(busy.until, busy);
}

void Segment::replay(Scenario& s, std::int32_t removed_site, Removal how, std::map<std::int32_t, double>* blocked) const {
  std::map<StreamKey, std::size_t> next_unlinked;
  auto run_activity = [&](std::size_t a, double earliest) {
    const Act& act = acts_[a];
    auto& st = s.streams[act.key];
    const double start = std::max(earliest, st.ready + act.gap);
    st.ready = start + act.duration;
    st.last_end = std::max(st.last_end, st.ready);
  };
  // Activities queued by calls outside the segment keep their recorded start, shifted with the host.
  auto run_unlinked_until = [&](const StreamKey& key, std::uint64_t before_ns, bool all) {
    auto list = unlinked_.find(key);
    if (list == unlinked_.end()) return;
    auto& next = next_unlinked[key];
    const double shift = s.clock.at(s.frontier_rec) - s.frontier_rep;
    while (next < list->second.size() && (all || gpu_[list->second[next]].start_ns < before_ns)) {
      const std::size_t a = list->second[next++];
      run_activity(a, s.clock.at(gpu_[a].start_ns) - (s.started ? shift : 0.0));
    }
  };

  for (const auto& c : calls_) {
    const HostCall& h = host_[c.host];
    const bool removed = removed_site >= 0 && h.site == removed_site;
    const bool read_gone = removed && how == Removal::Read && (c.blocking || c.feeds_read);
    double start;
    if (!s.started) {
      start = s.clock.at(h.start_ns);
      s.started = true;
    } else if (h.start_ns >= s.frontier_rec) {
      // The host's own time since the latest call, less what the probe's tracing added to it: its
      // callbacks around this call and the one before, and its measured work right after that one.
      double gap = static_cast<double>(h.start_ns - s.frontier_rec);
      if (callback_ns_ > 0) gap = std::max(0.0, gap - callback_ns_ - s.frontier_probe_ns);
      start = s.frontier_rep + gap;
      // A removed read takes the Python call that made it along: its host time before this CUDA call.
      if (read_gone) start = std::max(s.frontier_rep, start - static_cast<double>(h.py_before_ns));
    } else {  // overlaps the latest call (another thread): keep its offset from the previous start
      start = s.prev_start_rep + static_cast<double>(static_cast<std::int64_t>(h.start_ns - s.prev_start_rec));
    }
    if (!read_gone) {
      for (auto i = c.first_act; i >= 0; i = acts_[static_cast<std::size_t>(i)].next) {
        const auto a = static_cast<std::size_t>(i);
        run_unlinked_until(acts_[a].key, gpu_[a].start_ns, false);
        run_activity(a, start + acts_[a].latency);
      }
    }
    double end;
    if (read_gone) {
      end = start + c.descheduled;
    } else if (c.blocking && removed) {
      end = start + c.removed_overhead + c.descheduled;
    } else if (c.blocking && c.waits_end > c.waits_begin) {
      double waited = RelativeClock::kNever;
      for (auto w = c.waits_begin; w < c.waits_end; ++w) {
        const StreamKey& key = waits_[w];
        run_unlinked_until(key, h.start_ns, false);
        auto it = s.streams.find(key);
        if (it != s.streams.end()) waited = std::max(waited, it->second.last_end);
      }
      end = std::max(start + c.kept_overhead, waited + c.wake);
    } else {
      end = start + static_cast<double>(h.end_ns - h.start_ns);
    }
    if (h.end_ns >= s.frontier_rec) {
      // ... and its host time after the last CUDA call, until the Python call returned.
      s.frontier_rec = h.end_ns + (read_gone ? h.py_after_ns : 0);
      s.frontier_rep = end;
      s.frontier_probe_ns = static_cast<double>(h.probe_ns);
    }
    if (blocked != nullptr && c.blocking && h.site >= 0) (*blocked)[h.site] += end - start;
    s.prev_start_rec = h.start_ns;
    s.prev_start_rep = start;
  }
  for (const auto& [key, list] : unlinked_) run_unlinked_until(key, 0, true);
}

}  // namespace synclint::probe::detail
