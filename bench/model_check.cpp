// How well the GPU model stands in for the GPU records: takes a fully traced recording (SYNCLINT_PROBE_RECORD=1,
// bench/gpu/record_streams.sh), drops its GPU records from a given point on and models them from the records
// before it (recording_as_modelled, GpuModel), and prints, per site, the recorded estimates beside the
// modelled ones.
//
// usage: model_check [--without-model] [--window-ms N] [--first-scale F] [--callback-ns N] [--dump FILE] STREAM.json FROM...
//
// FROM: where the records end, in % of the host calls (0: every GPU activity modelled from the syncs alone,
// as SYNCLINT_PROBE_GPU_RECORDS=model does), or `settle`: where the probe's first stretch would have ended
// (SYNCLINT_PROBE_GPU_RECORDS=first, the default: KeySettling over the recorded launch families, from 1 s
// after the run's start to 20 s at most, the defaults of SYNCLINT_PROBE_FIRST_MS and
// SYNCLINT_PROBE_FIRST_MAX_MS). --without-model drops the records the same way and models nothing: what the
// estimates would be without the model.
// --window-ms N hands the stream over in windows of N ms, each learned from, modelled and analysed in
// turn, as the probe's recorder does (its default window is 2000 ms); without it, the whole stream is one.
// --first-scale F lengthens every GPU record before FROM by F (end = start + F x duration) before the model
// learns from them: what the estimates become when the first stretch's durations are off by F.
// --callback-ns N replays both, the recorded and the modelled, with N ns of the probe's time taken out of
// the host's gap before each call (EventStream::callback_overhead_ns; default: the recording's own).
// --dump FILE writes the stream the analysis saw for the last FROM (the recording with its later records
// replaced by the modelled ones) in the recording's own format, to set beside the recording.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <string>
#include <tuple>

#include "analysis.h"
#include "gpu_model.h"
#include "replay.h"
#include "sampling.h"
#include "site_lookup.h"
#include "stream_io.h"

using namespace synclint::probe;
using synclint::probe::bench::find;
using synclint::probe::bench::label;

namespace {

double error(double v, double ref) { return ref > 0 ? 100 * (v / ref - 1) : 0.0; }

// The index of the first host call after the probe's first stretch would have ended.
std::size_t settled_at(const EventStream& s) {
  constexpr std::uint64_t kFirstNs = 1'000'000'000, kFirstMaxNs = 20'000'000'000;
  synclint::probe::inject::KeySettling settling;
  for (std::size_t i = 0; i < s.host.size(); ++i) {
    const std::uint64_t t = s.host[i].start_ns - std::min(s.host[i].start_ns, s.run_start_ns);
    if (t >= kFirstMaxNs || (t >= kFirstNs && settling.settled())) {
      std::printf("# records end at host call %zu of %zu (%.2f s): %llu launch keys seen\n", i, s.host.size(),
                  static_cast<double>(t) / 1e9, static_cast<unsigned long long>(settling.keys()));
      return i;
    }
    const HostCall& h = s.host[i];
    if (h.launch_family != 0) settling.saw(h.launch_family);
    if (detail::is_blocking(h.kind) && h.site >= 0) settling.saw(synclint::probe::inject::KeySettling::site_key(h.site));
  }
  std::printf("# records never settle within the recording: they end at its last host call (%zu), whose GPU work "
              "is modelled\n", s.host.size() - 1);
  return s.host.size() - 1;
}

// The modelled stream analysed in windows of `window_ns` (0: one), each learned from and modelled first,
// as Recorder::consume does; returns the report and how many activities the model added.
// With `seen`, every chunk's calls and GPU activities are also appended to it as the analysis saw them.
std::pair<ProbeReport, std::size_t> model_and_analyze(const EventStream& m, GpuModel& model, bool synthesize,
                                                      std::uint64_t window_ns, EventStream* seen) {
  Accumulator acc;
  std::size_t added = 0;
  std::size_t h = 0, g = 0;
  const std::uint64_t begin = m.host.empty() ? m.run_start_ns : std::min(m.run_start_ns, m.host.front().start_ns);
  for (std::uint64_t from = begin; h < m.host.size() || g < m.gpu.size();) {
    const std::uint64_t to = window_ns == 0 ? UINT64_MAX : from + window_ns;
    EventStream chunk;
    chunk.sites = m.sites;
    chunk.callback_overhead_ns = m.callback_overhead_ns;
    chunk.run_start_ns = from;
    chunk.run_end_ns = std::min(to, m.run_end_ns);
    for (; h < m.host.size() && m.host[h].start_ns < to; ++h) chunk.host.push_back(m.host[h]);
    for (; g < m.gpu.size() && m.gpu[g].start_ns < to; ++g) chunk.gpu.push_back(m.gpu[g]);
    for (const auto& c : m.python_calls)
      if (c.start_ns >= from && c.start_ns < to) chunk.python_calls.push_back(c);
    model.learn(chunk);
    if (synthesize) added += model.synthesize(chunk);
    if (seen != nullptr) {
      seen->host.insert(seen->host.end(), chunk.host.begin(), chunk.host.end());
      seen->gpu.insert(seen->gpu.end(), chunk.gpu.begin(), chunk.gpu.end());
      seen->python_calls.insert(seen->python_calls.end(), chunk.python_calls.begin(), chunk.python_calls.end());
    }
    acc.consume(std::move(chunk));
    from = to;
  }
  return {acc.finish(RunInfo{}), added};
}

}  // namespace

int main(int argc, char** argv) {
  bool without = false;
  std::uint64_t window_ns = 0;
  double first_scale = 1;
  std::string dump;
  std::optional<std::uint64_t> callback_ns;
  for (; argc > 1 && std::string(argv[1]).rfind("--", 0) == 0; --argc, ++argv) {
    const std::string opt = argv[1];
    if (opt == "--without-model") {
      without = true;
    } else if (opt == "--window-ms" && argc > 2 && std::atof(argv[2]) > 0) {
      window_ns = static_cast<std::uint64_t>(std::atof(argv[2]) * 1e6);
      --argc;
      ++argv;
    } else if (opt == "--first-scale" && argc > 2 && std::atof(argv[2]) > 0) {
      first_scale = std::atof(argv[2]);
      --argc;
      ++argv;
    } else if (opt == "--callback-ns" && argc > 2) {
      callback_ns = std::strtoull(argv[2], nullptr, 10);
      --argc;
      ++argv;
    } else if (opt == "--dump" && argc > 2) {
      dump = argv[2];
      --argc;
      ++argv;
    } else {
      argc = 0;  // the usage below
      break;
    }
  }
  if (argc < 3) {
    std::cerr << "usage: model_check [--without-model] [--window-ms N] [--first-scale F] [--callback-ns N] [--dump FILE] "
                 "STREAM.json FROM_PERCENT|settle...\n";
    return 2;
  }
  try {
    EventStream s = read_stream(argv[1]);
    if (callback_ns) s.callback_overhead_ns = *callback_ns;
    const ProbeReport whole = analyze(s);
    std::printf("%-24s %6s | %5s %8s %7s %9s %9s %8s | %9s %9s %8s\n", "site", "calls", "from", "modelled", "unknown",
                "saving", "modelled", "error", "GPU idle", "modelled", "error");
    for (int a = 2; a < argc; ++a) {
      if (s.host.empty()) throw ProbeError(std::string(argv[1]) + ": no host calls");
      const bool settle = std::string(argv[a]) == "settle";
      double percent = settle ? 0 : std::atof(argv[a]);
      std::size_t at = std::min(s.host.size() - 1, static_cast<std::size_t>(percent / 100 * static_cast<double>(s.host.size())));
      if (settle) {
        at = settled_at(recording_as_modelled(s, UINT64_MAX));  // with the keys it hands the model
        percent = 100.0 * static_cast<double>(at) / static_cast<double>(s.host.size());
      }
      EventStream m = recording_as_modelled(s, s.host[at].start_ns);
      for (auto& g : m.gpu)  // the records the model learns from (those after FROM are dropped)
        if (first_scale != 1 && g.start_ns < s.host[at].start_ns)
          g.end_ns = g.start_ns + static_cast<std::uint64_t>(first_scale * static_cast<double>(g.end_ns - g.start_ns));
      GpuModel model;
      std::optional<EventStream> seen;  // for --dump, the last FROM's
      if (a + 1 == argc && !dump.empty()) {
        seen.emplace();
        seen->sites = m.sites;
        seen->run_start_ns = m.run_start_ns;
        seen->run_end_ns = m.run_end_ns;
      }
      const auto [r, added] = model_and_analyze(m, model, !without, window_ns, seen ? &*seen : nullptr);
      if (seen) {
        std::stable_sort(seen->gpu.begin(), seen->gpu.end(),
                         [](const GpuActivity& x, const GpuActivity& y) { return x.start_ns < y.start_ns; });
        write_stream(*seen, dump);
      }
      for (const auto& w : whole.sites) {
        if (w.calls < 10) continue;  // the recurring sites
        const SiteResult* x = find(r, w.site);
        const double saving = x ? x->predicted_saving_ms : 0, idle = x ? x->gpu_idle_ms : 0;
        std::printf("%-24s %6llu | %4.0f%% %8zu %7llu %9.3f %9.3f %+7.1f%% | %9.3f %9.3f %+7.1f%%\n", label(w.site).c_str(),
                    static_cast<unsigned long long>(w.calls), percent, added,
                    static_cast<unsigned long long>(model.unknown_work()), w.predicted_saving_ms, saving,
                    error(saving, w.predicted_saving_ms), w.gpu_idle_ms, idle, error(idle, w.gpu_idle_ms));
      }
    }
  } catch (const std::exception& e) {
    std::cerr << "model_check: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
