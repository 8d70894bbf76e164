// How well a sampled run's per-site estimates stand for the whole run: replays a fully traced recording
// (SYNCLINT_PROBE_SAMPLE=1 SYNCLINT_PROBE_RECORD=1) as the sampled probe would have seen it with one
// traced stretch of LEN_MS starting at each given offset (the stretch's calls and GPU records analysed,
// the blocking calls outside it only counted), and prints, per site, the estimate of the whole recording
// beside the sampled estimate as the probe reports it (add_untraced) and as plain per-call scaling gives it.
//
//   sampling_check STREAM.json[.gz, decompressed first] LEN_MS OFFSET_MS...
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <tuple>
#include <vector>

#include "analysis.h"
#include "replay.h"
#include "site_lookup.h"
#include "stream_io.h"

using namespace synclint::probe;
using synclint::probe::bench::find;
using synclint::probe::bench::label;

int main(int argc, char** argv) {
  if (argc < 4) {
    std::cerr << "usage: sampling_check STREAM.json LEN_MS OFFSET_MS...\n";
    return 2;
  }
  try {
    const EventStream s = read_stream(argv[1]);
    const double len_ns = std::atof(argv[2]) * 1e6;
    const ProbeReport whole = analyze(s);
    std::printf("%-28s %9s %10s | %8s %7s %10s %8s %10s %8s\n", "site", "calls", "whole ms", "offset", "traced", "sampled", "error", "per call", "error");
    for (int a = 3; a < argc; ++a) {
      const std::uint64_t from = s.run_start_ns + static_cast<std::uint64_t>(std::atof(argv[a]) * 1e6);
      const std::uint64_t to = from + static_cast<std::uint64_t>(len_ns);
      EventStream traced, untraced;
      traced.sites = untraced.sites = s.sites;
      traced.run_start_ns = from;
      traced.run_end_ns = to;
      for (const auto& h : s.host) {
        if (h.start_ns >= from && h.start_ns < to) traced.host.push_back(h);
        else if (detail::is_blocking(h.kind)) untraced.host.push_back(h);
      }
      for (const auto& g : s.gpu)
        if (g.start_ns >= from && g.start_ns < to) traced.gpu.push_back(g);
      for (const auto& c : s.python_calls)
        if (c.start_ns >= from && c.start_ns < to) traced.python_calls.push_back(c);
      Accumulator acc;
      if (from > s.run_start_ns) acc.exclude(s.run_start_ns, from);
      acc.consume(traced);
      acc.exclude(to, std::max(to, s.run_end_ns));
      const ProbeReport t = acc.finish({});
      UntracedCalls u;
      u.add(untraced);
      ProbeReport r = t;
      add_untraced(r, u, len_ns, static_cast<double>(s.run_end_ns - s.run_start_ns));
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
