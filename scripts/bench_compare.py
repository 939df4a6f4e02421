#!/usr/bin/env python3
"""Compares two umsync_bench JSON runs and flags regressions beyond the noise each run measured.

    python3 scripts/bench_compare.py baseline.json candidate.json [--min-change 0.05] [--sigmas 3]

Both runs need repetitions (--benchmark_repetitions=N, N >= 3): the noise of a benchmark is the
larger of the two runs' standard deviations of its time. A benchmark regresses when its median
time grew by more than --min-change (relative) AND by more than --sigmas times that noise.
Exit status 1 when anything regressed, so CI can gate on it; 2 on unusable input.

The runs should come from the same GPU and host CPU: host-side figures (allocation, launch,
event edges, fault-driven migration) follow the CPU the driver runs on. When the two runs name
a different GPU or host CPU (JSON context `gpu`, `host_cpu`), or a run does not name them, a
warning says so before the table; the verdicts stay as measured.
"""
import argparse
import json
import sys


def load(path):
    """The run's context and, per benchmark, its aggregate times (median, stddev, ...)."""
    with open(path) as f:
        data = json.load(f)
    runs = {}
    for b in data.get("benchmarks", []):
        if b.get("run_type") != "aggregate":
            continue
        runs.setdefault(b["run_name"], {})[b["aggregate_name"]] = b["real_time"]
    return data.get("context", {}), runs


def machine_warnings(baseline, old_context, candidate, new_context):
    """Lines that say where the two runs' machines differ or are not recorded."""
    warnings = []
    for key, what in (("gpu", "GPU"), ("host_cpu", "host CPU")):
        old, new = old_context.get(key), new_context.get(key)
        if old is None or new is None:
            missing = [p for p, v in ((baseline, old), (candidate, new)) if v is None]
            verb = "does not record its" if len(missing) == 1 else "do not record their"
            warnings.append(f"bench_compare: warning: {' and '.join(missing)} {verb} {what}; host-side figures "
                            "may differ because the machine did")
        elif old != new:
            warnings.append(f"bench_compare: warning: different {what}: {old!r} vs {new!r}; compare ratios "
                            "measured within each run rather than absolute times")
    return warnings


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("baseline")
    parser.add_argument("candidate")
    parser.add_argument("--min-change", type=float, default=0.05)
    parser.add_argument("--sigmas", type=float, default=3.0)
    args = parser.parse_args()
    (old_context, old), (new_context, new) = load(args.baseline), load(args.candidate)
    common = sorted(set(old) & set(new))
    usable = [n for n in common if {"median", "stddev"} <= old[n].keys() and {"median", "stddev"} <= new[n].keys()]
    if not usable:
        print("bench_compare: no benchmark has median and stddev in both runs (run with --benchmark_repetitions=3 or more)",
              file=sys.stderr)
        return 2
    for line in machine_warnings(args.baseline, old_context, args.candidate, new_context):
        print(line)
    regressions = 0
    print(f"{'benchmark':60s} {'old':>12s} {'new':>12s} {'change':>8s} {'noise':>8s}  verdict")
    for name in usable:
        o, n = old[name], new[name]
        change = (n["median"] - o["median"]) / o["median"] if o["median"] else 0.0
        noise = max(o["stddev"], n["stddev"])
        noise_rel = noise / o["median"] if o["median"] else 0.0
        worse = change > args.min_change and (n["median"] - o["median"]) > args.sigmas * noise
        better = -change > args.min_change and (o["median"] - n["median"]) > args.sigmas * noise
        verdict = "REGRESSION" if worse else ("faster" if better else "same")
        regressions += worse
        print(f"{name[:60]:60s} {o['median']:12.3f} {n['median']:12.3f} {100 * change:7.1f}% {100 * noise_rel:7.1f}%  {verdict}")
    for name in sorted(set(old) ^ set(new)):
        print(f"{name[:60]:60s} only in {'baseline' if name in old else 'candidate'}")
    print(f"bench_compare: {regressions} regression(s) in {len(usable)} compared benchmarks")
    return 1 if regressions else 0


if __name__ == "__main__":
    sys.exit(main())
