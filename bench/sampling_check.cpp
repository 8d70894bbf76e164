// How well a sampled run's per-site estimates stand for the whole run: replays a fully traced recording
// (SYNCLINT_PROBE_SAMPLE=1 SYNCLINT_PROBE_RECORD=1) as the sampled probe would have seen it with one
// traced stretch of LEN_MS starting at each given offset (the stretch's calls and GPU records analysed,
// the blocking calls outside it only counted), and prints, per site, the estimate of the whole recording
// beside the sampled estimate as the probe reports it (add_untraced) and as plain per-call scaling gives it.
// An offset "A+B+..." is one run with a stretch at each (the probe's first stretch and requested ones).
//
//   sampling_check [--model] STREAM.json[.gz, decompressed first] LEN_MS OFFSET_MS[+OFFSET_MS...]...
//
// --model: the stretches without their GPU records, the GPU work of each modelled from its syncs as the
// probe's default (SYNCLINT_PROBE_GPU_RECORDS=model) does, stretch by stretch with one model (GpuModel,
// recording_as_modelled): the sampled estimates of the default against the whole recording's.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <tuple>
#include <vector>

#include "analysis.h"
#include "gpu_model.h"
#include "replay.h"
#include "site_lookup.h"
#include "stream_io.h"

using namespace synclint::probe;
using synclint::probe::bench::find;
using synclint::probe::bench::label;

int main(int argc, char** argv) {
  const bool modelled = argc > 1 && std::string(argv[1]) == "--model";
  if (modelled) --argc, ++argv;
  if (argc < 4) {
    std::cerr << "usage: sampling_check [--model] STREAM.json LEN_MS OFFSET_MS...\n";
    return 2;
  }
  try {
    const EventStream s = read_stream(argv[1]);
    // With --model: every call as the probe hands it over without records (its GPU work modelled).
    const EventStream as_modelled = modelled ? recording_as_modelled(s, 0) : EventStream{};
    const double len_ns = std::atof(argv[2]) * 1e6;
    const ProbeReport whole = analyze(s);
    std::printf("%-28s %9s %10s | %8s %7s %10s %8s %10s %8s\n", "site", "calls", "whole ms", "offset", "traced", "sampled", "error", "per call", "error");
    for (int a = 3; a < argc; ++a) {
      // One or more stretches, "0+1250": each LEN_MS long, in one run (as the probe's first stretch and a
      // requested one), analysed as one window, the gaps between them excluded.
      std::vector<std::pair<std::uint64_t, std::uint64_t>> spans;
      for (std::string rest = argv[a]; !rest.empty();) {
        const std::size_t plus = rest.find('+');
        const std::uint64_t from = s.run_start_ns + static_cast<std::uint64_t>(std::atof(rest.substr(0, plus).c_str()) * 1e6);
        spans.emplace_back(from, from + static_cast<std::uint64_t>(len_ns));
        rest = plus == std::string::npos ? "" : rest.substr(plus + 1);
      }
      std::sort(spans.begin(), spans.end());
      auto inside = [&](std::uint64_t t) {
        return std::any_of(spans.begin(), spans.end(), [&](const auto& sp) { return t >= sp.first && t < sp.second; });
      };
      const EventStream& src = modelled ? as_modelled : s;
      EventStream untraced;
      untraced.sites = s.sites;
      for (const auto& h : s.host)
        if (!inside(h.start_ns) && detail::is_blocking(h.kind)) untraced.host.push_back(h);
      // Each stretch handed over on its own, after the gap before it is excluded, as the probe's windows
      // are (and, with --model, learned from and modelled first, as its recorder does).
      Accumulator acc;
      GpuModel model;
      std::uint64_t last = s.run_start_ns;
      for (const auto& [from, to] : spans) {
        if (from > last) acc.exclude(last, from);
        EventStream chunk = stretch_of(src, std::max(from, last), to, true);
        if (modelled) {
          model.learn(chunk);
          model.synthesize(chunk);
        }
        acc.consume(std::move(chunk));
        last = std::max(last, to);
      }
      acc.exclude(last, std::max(last, s.run_end_ns));
      const ProbeReport t = acc.finish({});
      UntracedCalls u;
      u.add(untraced);
      ProbeReport r = t;
      add_untraced(r, u, len_ns * static_cast<double>(spans.size()), static_cast<double>(s.run_end_ns - s.run_start_ns));
      for (const auto& w : whole.sites) {
        if (w.calls < 50) continue;  // the recurring sites
        const SiteResult* sr = find(r, w.site);
        const SiteResult* st = find(t, w.site);
        const double sampled = sr ? sr->predicted_saving_ms : 0;
        const double per_call = st && st->calls > 0 ? st->predicted_saving_ms * static_cast<double>(w.calls) / static_cast<double>(st->calls) : 0;
        auto err = [&](double v) { return w.predicted_saving_ms > 0 ? 100 * (v / w.predicted_saving_ms - 1) : 0.0; };
        std::printf("%-28s %9llu %10.3f | %8s %7llu %10.3f %+7.1f%% %10.3f %+7.1f%%\n", label(w.site).c_str(),
                    static_cast<unsigned long long>(w.calls), w.predicted_saving_ms, argv[a],
                    static_cast<unsigned long long>(st ? st->calls : 0), sampled, err(sampled), per_call, err(per_call));
      }
    }
  } catch (const std::exception& e) {
    std::cerr << "sampling_check: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
