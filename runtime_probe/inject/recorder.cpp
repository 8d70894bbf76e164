#include "recorder.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace synclint::probe::inject {

namespace {
constexpr std::uint64_t kCutMarginNs = 100'000'000;  // GPU records of the last 100 ms may still be in flight

struct ThreadSlot {
  void* recorder = nullptr;
  void* buffer = nullptr;
  std::atomic<bool>* dead = nullptr;
  ~ThreadSlot() {
    if (dead != nullptr) dead->store(true);
  }
};
thread_local ThreadSlot t_slot;

// Moves the records that started before `cut` (all when `final`) to `take`, keeping the rest in order.
template <typename T, typename F>
void drain_before(std::vector<T>& records, std::uint64_t cut, bool final, F take) {
  auto keep = records.begin();
  for (auto it = records.begin(); it != records.end(); ++it) {
    if (final || it->start < cut) {
      take(*it);
    } else {
      *keep++ = *it;
    }
  }
  records.erase(keep, records.end());
}
}  // namespace

Recorder::Recorder(RecorderOptions options) : options_(options) {}

Recorder::~Recorder() {
  // Thread buffers of live threads may still be referenced from thread-local slots; the recorder lives
  // for the whole process in the probe, so only the tests destroy one (after their threads joined).
  std::lock_guard lock(threads_mu_);
  for (auto* b : threads_) delete b;
  if (t_slot.recorder == this) t_slot = {};
}

std::uint32_t Recorder::add_api(std::string name) {
  api_names_.push_back(std::move(name));
  return static_cast<std::uint32_t>(api_names_.size() - 1);
}

Recorder::ThreadBuffer* Recorder::thread_buffer() {
  if (t_slot.recorder == this) return static_cast<ThreadBuffer*>(t_slot.buffer);
  auto* b = new ThreadBuffer;
  b->calls.reserve(4096);
  {
    std::lock_guard lock(threads_mu_);
    b->thread = next_thread_++;
    threads_.push_back(b);
  }
  t_slot.recorder = this;
  t_slot.buffer = b;
  t_slot.dead = &b->dead;
  return b;
}

void Recorder::add_call(const RawCall& call) {
  ThreadBuffer* b = thread_buffer();
  bool notify = false;
  {
    std::lock_guard lock(b->mu);
    b->calls.push_back(call);
    if (!b->notified && b->calls.size() >= options_.window_calls) notify = b->notified = true;
  }
  calls_seen_.fetch_add(1, std::memory_order_relaxed);
  if (notify && on_full_ != nullptr) on_full_();
}

void Recorder::set_last_site(std::uint64_t correlation, std::int32_t site) {
  ThreadBuffer* b = thread_buffer();
  std::lock_guard lock(b->mu);
  if (!b->calls.empty() && b->calls.back().correlation == correlation) b->calls.back().site = site;
}

std::uint32_t Recorder::intern_name(const char* name) {
  std::string n = name != nullptr ? name : "";
  std::lock_guard lock(gpu_mu_);
  auto [it, inserted] = name_index_.try_emplace(n, static_cast<std::uint32_t>(names_.size()));
  if (inserted) names_.push_back(n);
  return it->second;
}

void Recorder::add_gpu(const RawGpu* records, std::size_t n) {
  std::lock_guard lock(gpu_mu_);
  for (std::size_t i = 0; i < n; ++i) {
    gpu_.push_back(records[i]);
    last_gpu_end_ = std::max(last_gpu_end_, records[i].end);
  }
  if (n > 0) gpu_since_cut_ = true;
}

void Recorder::map_correlation(std::uint64_t driver_id, std::uint64_t runtime_id) {
  std::lock_guard lock(gpu_mu_);
  driver_to_runtime_[driver_id] = runtime_id;
}

std::uint64_t Recorder::safe_cut(std::uint64_t now_ns) const {
  std::uint64_t cut = now_ns > kCutMarginNs ? now_ns - kCutMarginNs : 0;
  std::lock_guard lock(gpu_mu_);
  if (gpu_since_cut_ && last_gpu_end_ < cut) cut = last_gpu_end_;
  return cut;
}

EventStream Recorder::take_window(std::uint64_t cut_ns, bool final) {
  EventStream w;
  std::vector<ThreadBuffer*> threads;
  {
    std::lock_guard lock(threads_mu_);
    threads = threads_;
  }
  std::uint64_t max_end = 0;
  std::vector<ThreadBuffer*> finished;
  for (auto* b : threads) {
    std::lock_guard lock(b->mu);
    drain_before(b->calls, cut_ns, final, [&](const RawCall& c) {
      if (c.python_call) {  // only around analysed calls: untraced ones are counted, not replayed
        if (c.traced) w.python_calls.push_back(PythonCall{c.start, c.end, b->thread, c.site});
        return;
      }
      HostCall h;
      h.start_ns = c.start;
      h.end_ns = c.end;
      h.thread = b->thread;
      h.correlation_id = c.correlation;
      h.kind = c.kind;
      h.api = api_names_[c.api];
      h.site = c.site;
      h.probe_ns = c.probe_ns;
      h.launch_key = c.launch_key;
      h.launch_family = c.launch_family;
      h.stream_handle = c.stream_handle;
      h.launch_blocks = c.launch_blocks;
      h.launch_block_threads = c.launch_block_threads;
      h.gpu_modelled = c.gpu_modelled;
      h.descheduled_ns = c.descheduled_ns;
      max_end = std::max(max_end, c.end);
      (c.traced ? w.host : untraced_chunk_.host).push_back(std::move(h));
    });
    b->notified = false;
    if (b->calls.empty() && b->dead.load()) finished.push_back(b);
  }
  if (!finished.empty()) {
    std::lock_guard lock(threads_mu_);
    for (auto* b : finished) {
      threads_.erase(std::remove(threads_.begin(), threads_.end(), b), threads_.end());
      delete b;
    }
  }
  {
    std::lock_guard lock(gpu_mu_);
    drain_before(gpu_, cut_ns, final, [&](const RawGpu& r) {
      GpuActivity g;
      g.start_ns = r.start;
      g.end_ns = r.end;
      g.device = r.device;
      g.stream = r.stream;
      g.correlation_id = r.correlation;
      if (r.driver_correlation) {
        auto m = driver_to_runtime_.find(r.correlation);
        if (m != driver_to_runtime_.end()) {
          g.correlation_id = m->second;
          driver_to_runtime_.erase(m);
        }
      }
      g.kind = r.kind;
      g.name = names_[r.name];
      max_end = std::max(max_end, r.end);
      w.gpu.push_back(std::move(g));
    });
    gpu_since_cut_ = false;
    if (driver_to_runtime_.size() > 100000) driver_to_runtime_.clear();  // never matched: bounded
  }
  std::sort(w.host.begin(), w.host.end(), [](const HostCall& a, const HostCall& b) { return a.start_ns < b.start_ns; });
  std::sort(w.gpu.begin(), w.gpu.end(), [](const GpuActivity& a, const GpuActivity& b) { return a.start_ns < b.start_ns; });
  std::sort(w.python_calls.begin(), w.python_calls.end(),
            [](const PythonCall& a, const PythonCall& b) { return a.start_ns < b.start_ns; });
  w.sites = sites_.snapshot();
  std::uint64_t dropped = dropped_.load();
  w.dropped_activity_records = dropped - dropped_reported_;
  dropped_reported_ = dropped;
  w.callback_overhead_ns = options_.callback_overhead_ns;
  w.run_start_ns = window_start_ns_;
  w.run_end_ns = final ? std::max({max_end, cut_ns == UINT64_MAX ? 0 : cut_ns, window_start_ns_}) : cut_ns;
  if (!final) window_start_ns_ = cut_ns;
  return w;
}

void Recorder::consume(EventStream chunk) {
  std::lock_guard lock(out_mu_);
  if (!untraced_chunk_.host.empty()) {
    untraced_chunk_.sites = chunk.sites;
    untraced_.add(untraced_chunk_);
    untraced_chunk_.host.clear();
  }
  if (chunk.host.empty() && chunk.gpu.empty() && chunk.dropped_activity_records == 0) {
    last_end_ns_ = std::max(last_end_ns_, chunk.run_end_ns);
    return;
  }
  if (options_.model_gpu) {
    model_.learn(chunk);
    model_.synthesize(chunk);
  }
  acc_.consume(chunk);
  ++windows_;
  last_end_ns_ = std::max(last_end_ns_, chunk.run_end_ns);
  if (options_.record_max_calls > 0 && !recorded_truncated_) {
    if (recorded_.host.empty() && recorded_.gpu.empty()) recorded_.run_start_ns = chunk.run_start_ns;
    recorded_.callback_overhead_ns = chunk.callback_overhead_ns;
    std::size_t room = options_.record_max_calls - recorded_.host.size();
    std::uint64_t until = chunk.run_end_ns;
    if (chunk.host.size() > room) {  // keep a prefix of the window, cut at the first call that does not fit
      until = chunk.host[room].start_ns;
      recorded_truncated_ = true;
    }
    for (const auto& h : chunk.host)
      if (h.start_ns < until || !recorded_truncated_) recorded_.host.push_back(h);
    for (const auto& g : chunk.gpu)
      if (g.start_ns < until || !recorded_truncated_) recorded_.gpu.push_back(g);
    for (const auto& c : chunk.python_calls)
      if (c.start_ns < until || !recorded_truncated_) recorded_.python_calls.push_back(c);
    recorded_.run_end_ns = until;
    recorded_.dropped_activity_records += chunk.dropped_activity_records;
  }
  if (options_.keep_last_window) last_ = std::move(chunk);
}

void Recorder::tracing_switched(bool on, std::uint64_t ns) {
  std::lock_guard lock(out_mu_);
  if (on == tracing_on_) return;
  tracing_on_ = on;
  sampled_ = true;
  if (!on) {
    off_since_ns_ = ns;
    return;
  }
  if (ns > off_since_ns_) {
    untraced_ns_ += ns - off_since_ns_;
    acc_.exclude(off_since_ns_, ns);
  }
}

ProbeReport Recorder::finish(RunInfo run) const {
  std::lock_guard lock(out_mu_);
  if (run.wall_ms == 0 && last_end_ns_ > run_start_ns_)
    run.wall_ms = static_cast<double>(last_end_ns_ - run_start_ns_) / 1e6;
  ProbeReport r = acc_.finish(std::move(run));
  if (sampled_) {
    const double total = last_end_ns_ > run_start_ns_ ? static_cast<double>(last_end_ns_ - run_start_ns_) : 0.0;
    double untraced = static_cast<double>(untraced_ns_);
    if (!tracing_on_ && last_end_ns_ > off_since_ns_) untraced += static_cast<double>(last_end_ns_ - off_since_ns_);
    add_untraced(r, untraced_, std::max(0.0, total - untraced), total);
  }
  r.modelled_gpu_activities = model_.modelled();
  r.modelled_without_duration = model_.unknown_work();
  return r;
}

EventStream Recorder::recorded(bool& truncated) const {
  std::lock_guard lock(out_mu_);
  truncated = recorded_truncated_;
  EventStream s = recorded_;
  s.sites = sites_.snapshot();
  return s;
}

std::string Recorder::model_summary() const {
  std::lock_guard lock(out_mu_);
  const GpuModel::FitStats& f = model_.fit_stats();
  auto mean = [](double log_sum, std::uint64_t n) { return n > 0 ? std::exp(log_sum / static_cast<double>(n)) : 1.0; };
  char line[320];
  std::snprintf(line, sizeof line,
                "syncs re-timed the modelled work %llu times longer (factor %.3f), %llu shorter (%.3f), %llu moved "
                "earlier; latency %.2f us, return %.2f us, sync work %.2f us, queue gap %.2f us",
                static_cast<unsigned long long>(f.longer), mean(f.log_longer, f.longer),
                static_cast<unsigned long long>(f.shorter), mean(f.log_shorter, f.shorter),
                static_cast<unsigned long long>(f.moved), model_.latency_ns() / 1e3, model_.return_ns() / 1e3,
                model_.sync_work_ns() / 1e3, model_.queue_gap_ns() / 1e3);
  return line;
}

EventStream Recorder::last_window() const {
  std::lock_guard lock(out_mu_);
  EventStream s = last_;
  s.sites = sites_.snapshot();
  return s;
}

}  // namespace synclint::probe::inject
