#!/usr/bin/env python3
"""Compares two umsync_bench JSON runs: paired rows on their umsync/raw ratio, the rest on time.

    python3 scripts/bench/compare.py baseline.json candidate.json [--min-change 0.05] [--sigmas 3]
        [--gate all|ratios] [--changed-only]

What is compared. A row that pairs umsync with raw CUDA measures both in the same iterations and
reports the counter `ratio` (umsync / raw, lower is better); such a *paired* row is judged on that
ratio, so a faster or slower machine, which moves both sides alike, does not move the verdict. Its
absolute time (umsync's median) is still compared and shown in the column "absolute drift": that
is the machine's (host CPU, driver, VM) drift, reported but never gated on. Every other row
(ceilings, `cudaMalloc`, unified-memory strategies: nothing measured against raw CUDA in the same
iterations) is *unpaired* and judged on its median time. Rows are matched by name without the
`/iterations:N`, `/repeats:N`, `/min_time:..` and `/manual_time` parts, so runs with other
repetition settings still match.

Classification, for the measure that decides (the ratio, or the time). Both runs need
repetitions (--benchmark_repetitions=N, N >= 2; 3 or more is sensible). Per run, the noise of a
measure is its relative standard deviation over that run's repetitions (the `stddev` aggregate
over the `median`; computed from the repetition rows when the aggregates are absent). The noise of
the comparison is the larger of the two runs' noises; change = new median / old median - 1. Then
    same    when |change| <= max(--min-change, noise): too small to matter, or inside the noise;
    slower  when change > --min-change and change > --sigmas x noise;
    faster  when -change > --min-change and -change > --sigmas x noise;
    unsure  otherwise: beyond one noise but not beyond --sigmas noises, or a run did not measure
            the noise (no repetitions).

Exit status: 1 when a paired row's ratio is slower, or (with --gate all, the default) when an
unpaired row's time is slower; 0 otherwise (same, faster, unsure, absolute drift of paired rows,
rows only in one run or skipped never fail). --gate ratios gates on paired ratios only: use it
when the two runs come from different machines, where unpaired times carry the machine's drift.
2 on unusable input (a file that cannot be read, or no row with repetitions in both runs). A
verdict that counts toward the exit status is printed in bold (**slower**).

The runs should come from the same GPU and host CPU: host-side figures (allocation, launch, event
edges, fault-driven migration) follow the CPU the driver runs on. When the two runs name a
different GPU or host CPU (JSON context `gpu`, `host_cpu`), or a run does not name them, a warning
says so before the table; the verdicts stay as measured.
"""
import argparse
import json
import re
import statistics
import sys

TIME_UNITS = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
RATIO = "ratio"  # the counter a paired row reports: umsync / raw, measured in the same iterations


def display_name(run_name):
    """The run name without Google Benchmark's run-setting parts (iterations, repeats, ...)."""
    return re.sub(r"/(manual_time|real_time|process_time|iterations:\d+|repeats:\d+|min_time:[0-9.e+-]+s?|"
                  r"min_warmup_time:[0-9.e+-]+s?|threads:\d+)", "", run_name)


class Row:
    """One benchmark of one run: its aggregates, or its repetition rows, or its error."""

    def __init__(self, run_name):
        self.run_name = run_name
        self.aggregates = {}
        self.repetitions = []
        self.error = None

    def time_unit(self):
        rows = list(self.aggregates.values()) + self.repetitions
        return rows[0].get("time_unit", "ns") if rows else "ns"

    def unit_seconds(self):
        return TIME_UNITS.get(self.time_unit(), 1e-9)

    def repeated(self):
        """Whether the run repeated this benchmark (a JSON without the count: when it wrote a stddev)."""
        if self.aggregates:
            count = next(iter(self.aggregates.values())).get("repetitions")
            return count >= 2 if count is not None else ("stddev" in self.aggregates or "cv" in self.aggregates)
        return len(self.repetitions) >= 2

    def measure(self, field):
        """(median, relative noise or None) of `field` ("real_time" or a counter), or None when absent."""
        median_row = self.aggregates.get("median")
        if median_row is not None and field in median_row:
            median = median_row[field]
            stddev_row = self.aggregates.get("stddev")
            if stddev_row is not None and field in stddev_row and self.repeated():
                noise = abs(stddev_row[field] / median) if median else None
            elif "cv" in self.aggregates and field in self.aggregates["cv"] and self.repeated():
                noise = abs(self.aggregates["cv"][field])
            else:
                noise = None
            return median, noise
        values = [r[field] for r in self.repetitions if field in r]
        if not values:
            return None
        median = statistics.median(values)
        noise = abs(statistics.stdev(values) / median) if len(values) >= 2 and median else None
        return median, noise


def load(path):
    """The run's context and its rows, keyed by display name (the full run name where two collide)."""
    with open(path) as f:
        data = json.load(f)
    rows = {}
    for b in data.get("benchmarks", []):
        run_name = b.get("run_name", b.get("name", ""))
        row = rows.setdefault(run_name, Row(run_name))
        if b.get("error_occurred"):
            row.error = b.get("error_message") or "skipped"
        elif b.get("run_type") == "aggregate":
            row.aggregates[b.get("aggregate_name")] = b
        else:
            row.repetitions.append(b)
    names = {}
    for run_name in rows:
        names.setdefault(display_name(run_name), []).append(run_name)
    keyed = {}
    for short, full in names.items():
        for run_name in full:
            keyed[short if len(full) == 1 else run_name] = rows[run_name]
    return data.get("context", {}), keyed


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
            warnings.append(f"bench_compare: warning: different {what}: {old!r} vs {new!r}; paired rows are judged "
                            "on their umsync/raw ratios, unpaired rows' absolute times include the machines' "
                            "difference (--gate ratios leaves them out of the exit status)")
    return warnings


def classify(old, new, noise, min_change, sigmas):
    """(verdict, relative change or None): same, faster, slower or unsure, lower being better."""
    if old is None or new is None or old <= 0 or new < 0:
        return "unsure", None
    change = new / old - 1.0
    if noise is None:
        return "unsure", change
    if abs(change) <= max(min_change, noise):
        return "same", change
    if abs(change) > sigmas * noise:
        return ("slower" if change > 0 else "faster"), change
    return "unsure", change


def compare_measure(old_row, new_row, field, args, scale=(1.0, 1.0)):
    """The comparison of one measure of a row: old, new, change, noise, verdict."""
    old, new = old_row.measure(field), new_row.measure(field)
    if old is None or new is None:
        return None
    noises = [old[1], new[1]]
    noise = None if None in noises else max(noises)
    old_value, new_value = old[0] * scale[0], new[0] * scale[1]
    verdict, change = classify(old_value, new_value, noise, args.min_change, args.sigmas)
    return dict(old=old_value, new=new_value, change=change, noise=noise, verdict=verdict)


def fmt_value(value, unit=""):
    if value is None:
        return "n/a"
    if abs(value) >= 1000:
        text = f"{value:,.0f}"
    elif abs(value) >= 10:
        text = f"{value:.2f}"
    else:
        text = f"{value:.4g}" if abs(value) < 0.01 else f"{value:.3f}"
    return f"{text} {unit}".rstrip()


def fmt_percent(value):
    return "n/a" if value is None else f"{100 * value:+.1f}%"


def fmt_noise(value):
    return "n/a" if value is None else f"+/-{100 * value:.1f}%"


def table(header, rows):
    """A Markdown table padded so that it also reads as plain text."""
    widths = [max(len(str(c)) for c in column) for column in zip(header, *rows)]
    lines = ["| " + " | ".join(str(c).ljust(w) for c, w in zip(header, widths)) + " |",
             "|" + "|".join("-" * (w + 2) for w in widths) + "|"]
    for row in rows:
        lines.append("| " + " | ".join(str(c).ljust(w) for c, w in zip(row, widths)) + " |")
    return lines


def describe(context):
    parts = [f"GPU {context.get('gpu', '?')!r}", f"host CPU {context.get('host_cpu', '?')!r}"]
    if context.get("date"):
        parts.append(str(context["date"]))
    return ", ".join(parts)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="\n".join(__doc__.splitlines()[4:]))
    parser.add_argument("baseline")
    parser.add_argument("candidate")
    parser.add_argument("--min-change", type=float, default=0.05,
                        help="smallest relative change that counts (default 0.05)")
    parser.add_argument("--sigmas", type=float, default=3.0,
                        help="a change beyond this many noises is faster or slower (default 3)")
    parser.add_argument("--gate", choices=("all", "ratios"), default="all",
                        help="what sets exit status 1: a slower paired ratio or unpaired time (all, default), "
                             "or a slower paired ratio only (ratios)")
    parser.add_argument("--changed-only", action="store_true",
                        help="list only rows whose deciding measure is not 'same' (the summary counts all)")
    args = parser.parse_args()
    if args.min_change < 0 or args.sigmas < 1:
        parser.error("--min-change must be >= 0 and --sigmas >= 1")
    try:
        (old_context, old), (new_context, new) = load(args.baseline), load(args.candidate)
    except (OSError, ValueError, AttributeError, TypeError) as error:
        print(f"bench_compare: cannot read the runs: {error}", file=sys.stderr)
        return 2

    results = []  # (name, deciding measure, its comparison, its unit, the absolute drift of a paired row)
    for name in old:
        if name not in new or old[name].error or new[name].error:
            continue
        o, n = old[name], new[name]
        # Times in the baseline's unit, whatever unit the candidate wrote them in.
        time = compare_measure(o, n, "real_time", args, (1.0, n.unit_seconds() / o.unit_seconds()))
        ratio = compare_measure(o, n, RATIO, args)
        if ratio is not None:
            results.append((name, "ratio", ratio, "", time))
        elif time is not None:
            results.append((name, "absolute", time, o.time_unit(), None))
    if not any(r[2]["noise"] is not None for r in results):
        print("bench_compare: no benchmark has repetitions in both runs (run with --benchmark_repetitions=3 or more)",
              file=sys.stderr)
        return 2

    print(f"bench_compare: baseline {args.baseline}: {describe(old_context)}")
    print(f"bench_compare: candidate {args.candidate}: {describe(new_context)}")
    for line in machine_warnings(args.baseline, old_context, args.candidate, new_context):
        print(line)
    print()
    print(f"Rule: paired rows (umsync and raw CUDA in the same iterations, counter `{RATIO}`) are decided by "
          "their umsync/raw ratio, the others by their median time; the noise is the larger of the two runs' "
          "relative standard deviations over their repetitions; a change is same within "
          f"max({100 * args.min_change:g}%, noise), slower/faster beyond both {100 * args.min_change:g}% and "
          f"{args.sigmas:g} x noise, unsure in between or without repetitions. \"absolute drift\" is a paired "
          "row's median time: the machine's drift, never gated.")
    print()

    header = ["benchmark", "decided by", "old", "new", "change", "noise", "verdict", "absolute drift (not gated)"]
    lines = []
    for name, kind, d, time_unit, drift in results:
        if args.changed_only and d["verdict"] == "same":
            continue
        drift_text = "-"
        if drift is not None:
            drift_text = f"{fmt_percent(drift['change'])} {fmt_noise(drift['noise'])} {drift['verdict']}"
        verdict = d["verdict"]
        gates = verdict == "slower" and (kind == "ratio" or args.gate == "all")
        shown = name.replace("|", "/")
        lines.append([f"`{shown}`", kind, fmt_value(d["old"], time_unit), fmt_value(d["new"], time_unit),
                      fmt_percent(d["change"]), fmt_noise(d["noise"]), f"**{verdict}**" if gates else verdict,
                      drift_text])
    for line in table(header, lines):
        print(line)

    only = [(name, "baseline") for name in old if name not in new] + \
           [(name, "candidate") for name in new if name not in old]
    skipped = [(name, which, run[name].error) for name in old if name in new
               for which, run in (("baseline", old), ("candidate", new)) if run[name].error]
    if only or skipped:
        print()
    for name, which in only:
        print(f"- `{name}`: only in {which}")
    for name, which, error in skipped:
        print(f"- `{name}`: skipped in {which}: {error}")
    print()

    def counts(rows):
        tally = {v: sum(1 for r in rows if r[2]["verdict"] == v) for v in ("same", "faster", "slower", "unsure")}
        return ", ".join(f"{count} {verdict}" for verdict, count in tally.items())

    paired = [r for r in results if r[1] == "ratio"]
    unpaired = [r for r in results if r[1] == "absolute"]
    regressions = sum(1 for r in paired if r[2]["verdict"] == "slower")
    if args.gate == "all":
        regressions += sum(1 for r in unpaired if r[2]["verdict"] == "slower")
    if paired:
        drifts = [r[4]["change"] for r in paired if r[4] is not None and r[4]["change"] is not None]
        drift_text = ""
        if drifts:
            drift_text = (f"; their absolute times moved by a median {fmt_percent(statistics.median(drifts))} "
                          f"({fmt_percent(min(drifts))} to {fmt_percent(max(drifts))}): machine drift, not gated")
        print(f"bench_compare: {len(paired)} paired rows, decided by their umsync/raw ratio: {counts(paired)}"
              f"{drift_text}")
    if unpaired:
        gated = "gated" if args.gate == "all" else "not gated: --gate ratios"
        print(f"bench_compare: {len(unpaired)} unpaired rows, decided by their absolute time ({gated}): "
              f"{counts(unpaired)}")
    print(f"bench_compare: {regressions} regression(s) in {len(results)} compared benchmarks "
          f"(exit {1 if regressions else 0}; gate: {args.gate})")
    return 1 if regressions else 0


if __name__ == "__main__":
    sys.exit(main())
