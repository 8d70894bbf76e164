"""Prints a probe report's sites (and, given a recorded stream, how many GPU records link to a host call).

  python3 show_report.py report.json [stream.json]
"""
import collections
import json
import sys


def main():
    rep = json.load(open(sys.argv[1]))
    run = rep["run"]
    print(f"status={run['status']!r} gpu={run['gpu_name']!r} wall_ms={run['wall_ms']:.1f} totals={rep['totals']}")
    for s in rep["sites"]:
        site = s.get("site", s)
        print("  {}:{} {} [{}] api={} rule={} calls={} blocked_ms={:.3f} idle_ms={:.3f} saving_ms={:.3f}".format(
            site.get("path"), site.get("line"), site.get("function"), site.get("language"), s.get("api"),
            s.get("rule_guess"), s.get("calls"), s.get("host_blocked_ms", 0), s.get("gpu_idle_ms", 0),
            s.get("predicted_saving_ms", 0)))
    if len(sys.argv) > 2:
        st = json.load(open(sys.argv[2]))
        host, gpu = st["host"], st["gpu"]
        corr = {h[3] for h in host}
        kinds = collections.Counter(h[4] for h in host)
        linked = collections.Counter((g[5], g[4] in corr) for g in gpu)
        print(f"  stream: {len(host)} host calls {dict(kinds)}; {len(gpu)} gpu records, linked: {dict(linked)}; "
              f"sites {len(st['sites'])}; dropped {st['dropped_activity_records']}")
        apis = collections.Counter(h[5] for h in host)
        print(f"  apis: {dict(apis)}")


if __name__ == "__main__":
    main()
