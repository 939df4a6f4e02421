#!/usr/bin/env python3
"""Turns umsync_bench's JSON into a Markdown report: a verdict first, the seeds' claims checked,
then one table per family, with PNG plots.

    python3 scripts/bench/report.py build/default/umsync-bench.json --out build/default/bench-report

Every figure in the report comes from the JSON of one run: medians over its repetitions, the
spread (coefficient of variation) next to them, and the ratios each family measured against its
raw-CUDA baseline or ceiling in the same run.

- Verdict: one row per decision a user faces (the table in scripts/bench/decisions.py: which
  benchmark rows each option uses; verdict.py reads it), each option's cost as a ratio to the
  best option and to the ceiling measured in the same run, and a one-line verdict; a decision
  whose rows are not in the run says "not measured in this run". The same as one figure,
  verdict.png (each decision's options normalised to the best).
- Claims checked: each claim of the seeds that a benchmark measures (the table in
  scripts/bench/claims.py, or --claims FILE) next to what this run measured: held, did not hold,
  partly held (at some sizes), or not measured.
- A quick run (--quick, or the JSON context's "umsync_quick" set to 1/true) is marked as such.

Plots need matplotlib (Debian: python3-matplotlib); without it the report is written without
plots, says so, and bench_report prints why. It installs nothing.

The pipeline's modules, beside this file: runs.py (the JSON's rows), verdict.py and decisions.py
(the verdict: its policies, and its decisions as data), claim_check.py and claims.py (the claims:
the check, and the claims as data), plots.py (the PNGs), merge.py and compare.py (merge a run's
parts, compare two runs), run-benchmarks.sh (the main job's run).
"""
import argparse
import os
import shutil
import subprocess
import sys

import plots
from claim_check import claims_lines, load_claims
from decisions import FAMILY_NOTES
from runs import Run, counters_of, family_of, fmt, instance_of, load, median_row
from verdict import decide, verdict_lines


def gpu_state():
    if not shutil.which("nvidia-smi"):
        return None
    query = "name,driver_version,clocks.sm,clocks.mem,clocks.max.sm,temperature.gpu,power.draw"
    out = subprocess.run(["nvidia-smi", f"--query-gpu={query}", "--format=csv,noheader"], check=False,
                         capture_output=True, text=True)
    return out.stdout.strip() if out.returncode == 0 else None



KNOWN_CONTEXT = {"date", "host_name", "executable", "num_cpus", "mhz_per_cpu", "cpu_scaling_enabled", "caches",
                 "load_avg", "library_build_type", "library_version", "json_schema_version", "gpu", "cuda_driver",
                 "cuda_runtime", "host_cpu", "umsync_parts_missing", "umsync_quick"}


def is_quick(context, flag):
    value = context.get("umsync_quick")
    return flag or value is True or str(value).strip().lower() in ("1", "true", "yes", "on")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("json")
    parser.add_argument("--out", required=True, help="folder for report.md, verdict.png and the PNG plots")
    parser.add_argument("--no-plots", action="store_true", help="tables only, no plots")
    parser.add_argument("--quick", action="store_true",
                        help="mark the report as a quick run's (also when the JSON context has umsync_quick=1)")
    parser.add_argument("--claims", default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                         "claims.py"),
                        help="the claims table (a Python file with CLAIMS; default: scripts/bench/claims.py)")
    parser.add_argument("--note", action="append", default=[], help="a line to add to the report's header")
    args = parser.parse_args()
    context, rows = load(args.json)
    if not rows:
        print(f"bench_report: {args.json} holds no benchmark results", file=sys.stderr)
        return 1
    os.makedirs(args.out, exist_ok=True)
    if args.no_plots:
        plt, plot_note = None, "plots not asked for (--no-plots)"
    else:
        plt, plot_note = plots.pyplot()
        if plt is None:
            print(f"bench_report: {plot_note}", file=sys.stderr)

    families = {}
    for run_name, aggregates in rows.items():
        families.setdefault(family_of(run_name), []).append((instance_of(run_name), median_row(aggregates),
                                                             aggregates))
    run = Run(rows)
    quick = is_quick(context, args.quick)
    decisions = decide(run)

    lines = ["# umsync benchmark report" + (" (quick run)" if quick else ""), ""]
    if quick:
        lines.append("- **Quick run**: fewer sizes and repetitions than the full run; its figures show the shape, "
                     "quote the full run's (`cmake --workflow --preset bench`)")
    lines.append(f"- Run: {context.get('date', '?')} on {context.get('host_name', '?')}")
    lines.append(f"- GPU: {context.get('gpu', '?')}; CUDA driver API {context.get('cuda_driver', '?')}, "
                 f"runtime {context.get('cuda_runtime', '?')}")
    cpus = f"{context.get('num_cpus', '?')} CPUs, {context.get('mhz_per_cpu', '?')} MHz"
    lines.append(f"- Host CPU: {context.get('host_cpu', 'not recorded')} ({cpus}); host-side figures depend on it")
    state = gpu_state()
    if state:
        lines.append(f"- nvidia-smi now (name, driver, SM clock, memory clock, max SM clock, temperature, power): {state}")
    else:
        lines.append("- GPU clocks: not recorded in the JSON, and no nvidia-smi where this report was written")
    recorded = {k: v for k, v in context.items() if k not in KNOWN_CONTEXT and not isinstance(v, (list, dict))}
    if recorded:
        lines.append("- Also recorded by the run: " + ", ".join(f"{k} = {v}" for k, v in sorted(recorded.items())))
    lines.append(f"- Source: `{args.json}`; medians of each benchmark's repetitions; cv = spread of the time")
    for note in args.note:
        lines.append(f"- {note}")
    if plot_note:
        lines.append(f"- {plot_note}")
    if context.get("umsync_parts_missing"):
        lines.append("- **Not in this report** (stopped at the time limit or failed; see bench.txt): " +
                     ", ".join(context["umsync_parts_missing"]))
    lines.append("")

    figure = None
    if plt is not None:
        title = f"umsync verdict: {context.get('gpu', '?')}, {context.get('date', '?')}"
        figure = plots.plot_verdict(plt, decisions, args.out, title + (" (quick run)" if quick else ""))
    lines += verdict_lines(decisions, run, figure)
    if os.path.exists(args.claims):
        shown = os.path.relpath(args.claims) if not os.path.relpath(args.claims).startswith("..") else args.claims
        lines += claims_lines(load_claims(args.claims), run, shown)
    else:
        lines += ["## Claims checked", "", f"No claims table at `{args.claims}`.", ""]

    for family in sorted(families):
        instances = families[family]
        present = counters_of(instances)
        lines.append(f"## {family}")
        lines.append("")
        if family in FAMILY_NOTES:
            lines.append(FAMILY_NOTES[family])
            lines.append("")
        lines.append("| instance | time | cv | " + " | ".join(present) + " |")
        lines.append("|---|---|---|" + "---|" * len(present))
        for name, row, aggregates in instances:
            if row.get("error_occurred"):
                lines.append(f"| {name} | skipped: {row.get('error_message', '')} | |" + " |" * len(present))
                continue
            cv = aggregates.get("cv", {}).get("real_time")
            cv_text = f"{100 * cv:.1f}%" if cv is not None else ""
            values = " | ".join(fmt(row.get(m)) for m in present)
            lines.append(f"| {name} | {fmt(row['real_time'])} {row.get('time_unit', '')} | {cv_text} | {values} |")
        lines.append("")
        if plt is not None and len(instances) >= 1:
            pairs = [(n, r) for n, r, _ in instances]
            png = plots.plot_by_size(plt, family, pairs, args.out) if family.startswith("family_a") else None
            png = png or plots.plot_family(plt, family, pairs, args.out)
            lines.append(f"![{family}]({png})")
            lines.append("")
    report = os.path.join(args.out, "report.md")
    with open(report, "w") as f:
        f.write("\n".join(lines))
    measured = sum(d.measured for d in decisions)
    print(f"bench_report: wrote {report} ({len(families)} families, {measured} of {len(decisions)} decisions measured"
          f"{', quick run' if quick else ''}{', with plots' if plt else ', no plots'})")
    return 0



if __name__ == "__main__":
    sys.exit(main())
