#!/usr/bin/env python3
"""Turns umsync_bench's JSON into a Markdown report with one table per family and PNG plots.

    python3 scripts/bench_report.py build/default/umsync-bench.json --out build/default/bench-report

Every figure in the report comes from the JSON of one run: medians over its repetitions, the
spread (coefficient of variation) next to them, and the ratios each family measured against its
raw-CUDA baseline or ceiling in the same run. Plots need matplotlib (Debian: python3-matplotlib);
when it is missing and this runs as root with apt-get, it is installed; otherwise the report is
written without plots and says so.
"""
import argparse
import json
import math
import os
import re
import shutil
import subprocess
import sys

# Counters shown first, in this order; any other counter a family reports follows.
METRICS = ["GB/s", "ratio", "raw_us", "umsync_us", "us_per_op", "raw_cycles", "umsync_cycles",
           "to_device_ms", "ceiling_to_device_ms", "ratio_to_device", "to_host_ms", "ceiling_to_host_ms",
           "ratio_to_host", "resident_kernel_us", "ceiling_kernel_us", "ratio_resident", "fraction_of_pinned"]
# Fields of Google Benchmark's JSON that are not counters.
STANDARD_FIELDS = {"name", "family_index", "per_family_instance_index", "run_name", "run_type", "repetitions",
                   "repetition_index", "threads", "iterations", "real_time", "cpu_time", "time_unit",
                   "aggregate_name", "aggregate_unit", "error_occurred", "error_message", "label"}


def family_of(run_name):
    return re.split(r"[/<]", run_name, maxsplit=1)[0]


def instance_of(run_name):
    name = re.sub(r"/(manual_time|iterations:\d+|repeats:\d+|min_time:[0-9.]+s?)", "", run_name)
    family = family_of(name)
    return name[len(family):].lstrip("/") or "-"


def counters_of(instances):
    """The counters the family reports: METRICS order first, then the rest by name."""
    names = set()
    for _, row, _ in instances:
        names.update(k for k, v in row.items() if k not in STANDARD_FIELDS and isinstance(v, (int, float)))
    return [m for m in METRICS if m in names] + sorted(names - set(METRICS))


def size_kib(instance):
    """The size argument (KiB) of a family A instance such as 'um_prefetch/65536'."""
    match = re.search(r"/(\d+)$", instance)
    return int(match.group(1)) if match else None


def load(path):
    with open(path) as f:
        data = json.load(f)
    rows = {}
    for b in data.get("benchmarks", []):
        run = b.get("run_name", b["name"])
        kind = b.get("aggregate_name", "single")
        rows.setdefault(run, {})[kind] = b
    return data.get("context", {}), rows


def median_row(aggregates):
    return aggregates.get("median") or aggregates.get("single") or next(iter(aggregates.values()))


def ensure_matplotlib():
    try:
        import matplotlib  # noqa: F401
        return True, ""
    except ImportError:
        pass
    if os.geteuid() == 0 and shutil.which("apt-get"):
        print("bench_report: installing python3-matplotlib (Debian package)", flush=True)
        subprocess.run(["apt-get", "install", "-y", "-qq", "python3-matplotlib"], check=False,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if sys.executable != "/usr/bin/python3" and os.path.exists("/usr/bin/python3"):
            probe = subprocess.run(["/usr/bin/python3", "-c", "import matplotlib"], check=False)
            if probe.returncode == 0:
                os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
        try:
            import matplotlib  # noqa: F401
            return True, ""
        except ImportError:
            pass
    return False, "matplotlib is not installed (Debian: apt-get install python3-matplotlib): no plots"


def fmt(value):
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if abs(value) >= 1000:
        return f"{value:,.0f}"
    if abs(value) >= 10:
        return f"{value:.1f}"
    return f"{value:.3f}"


def gpu_state():
    if not shutil.which("nvidia-smi"):
        return None
    query = "name,driver_version,clocks.sm,clocks.mem,clocks.max.sm,temperature.gpu,power.draw"
    out = subprocess.run(["nvidia-smi", f"--query-gpu={query}", "--format=csv,noheader"], check=False,
                         capture_output=True, text=True)
    return out.stdout.strip() if out.returncode == 0 else None


def plot_by_size(plt, family, instances, out_dir):
    """Bandwidth against size, one line per strategy, and the pinned-copy ceiling."""
    series = {}
    ceiling = {}
    for name, row in instances:
        kib = size_kib(name)
        if kib is None or row.get("error_occurred"):
            continue
        strategy = name.rsplit("/", 1)[0].replace("_16GiB", "")
        gigabytes = kib * 1024 / 1e9
        time_ms = row.get("to_device_ms") or row.get("to_host_ms")
        ceiling_ms = row.get("ceiling_to_device_ms") or row.get("ceiling_to_host_ms")
        if time_ms:
            series.setdefault(strategy, []).append((kib, gigabytes / (time_ms * 1e-3)))
        if ceiling_ms:
            ceiling.setdefault(kib, []).append(gigabytes / (ceiling_ms * 1e-3))
    if not series:
        return None
    fig, ax = plt.subplots(figsize=(8, 5))
    for strategy, points in sorted(series.items()):
        points.sort()
        ax.plot([k for k, _ in points], [v for _, v in points], marker="o", label=strategy)
    if ceiling:
        ks = sorted(ceiling)
        ax.plot(ks, [sorted(ceiling[k])[len(ceiling[k]) // 2] for k in ks], "k--", label="pinned copy (ceiling)")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("size (KiB)")
    direction = "host to device + kernel" if family == "family_a" else "device to host + host reads"
    ax.set_ylabel(f"effective GB/s ({direction})")
    ax.set_title(family)
    ax.legend(fontsize=7)
    fig.tight_layout()
    path = os.path.join(out_dir, f"{family}.png")
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return os.path.basename(path)


def plot_family(plt, family, instances, out_dir):
    metric = next((m for m in ["GB/s", "us_per_op", "umsync_us", "umsync_cycles"]
                   if any(m in row for _, row in instances)), None)
    labels = [name for name, _ in instances]
    fig, ax = plt.subplots(figsize=(max(6, 0.6 * len(labels) + 3), 4))
    if metric is None:
        values = [row["real_time"] for _, row in instances]
        ax.bar(labels, values)
        ax.set_ylabel(f"time ({instances[0][1].get('time_unit', '')})")
    else:
        raw_metric = {"umsync_us": "raw_us", "umsync_cycles": "raw_cycles"}.get(metric)
        xs = range(len(labels))
        values = [row.get(metric, float("nan")) for _, row in instances]
        if raw_metric:
            raw = [row.get(raw_metric, float("nan")) for _, row in instances]
            ax.bar([x - 0.2 for x in xs], raw, width=0.4, label="raw CUDA")
            ax.bar([x + 0.2 for x in xs], values, width=0.4, label="umsync")
            ax.legend()
        else:
            ax.bar(list(xs), values)
        ax.set_xticks(list(xs))
        ax.set_xticklabels(labels)
        ax.set_ylabel(metric)
        positive = [v for v in values if v and v > 0 and not math.isnan(v)]
        if positive and max(positive) / min(positive) > 100:
            ax.set_yscale("log")
    ax.set_title(family)
    plt.setp(ax.get_xticklabels(), rotation=30, ha="right")
    fig.tight_layout()
    path = os.path.join(out_dir, f"{family}.png")
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return os.path.basename(path)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("json")
    parser.add_argument("--out", required=True, help="folder for report.md and the PNG plots")
    parser.add_argument("--no-plots", action="store_true", help="tables only: neither plot nor install matplotlib")
    args = parser.parse_args()
    context, rows = load(args.json)
    if not rows:
        print(f"bench_report: {args.json} holds no benchmark results", file=sys.stderr)
        return 1
    os.makedirs(args.out, exist_ok=True)
    have_plots, plot_note = (False, "plots not asked for (--no-plots)") if args.no_plots else ensure_matplotlib()
    plt = None
    if have_plots:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

    families = {}
    for run, aggregates in rows.items():
        families.setdefault(family_of(run), []).append((instance_of(run), median_row(aggregates), aggregates))

    lines = ["# umsync benchmark report", ""]
    lines.append(f"- Run: {context.get('date', '?')} on {context.get('host_name', '?')}")
    lines.append(f"- GPU: {context.get('gpu', '?')}; CUDA driver API {context.get('cuda_driver', '?')}, "
                 f"runtime {context.get('cuda_runtime', '?')}")
    cpus = f"{context.get('num_cpus', '?')} CPUs, {context.get('mhz_per_cpu', '?')} MHz"
    lines.append(f"- Host CPU: {context.get('host_cpu', 'not recorded')} ({cpus}); host-side figures depend on it")
    state = gpu_state()
    if state:
        lines.append(f"- nvidia-smi now (name, driver, SM clock, memory clock, max SM clock, temperature, power): {state}")
    lines.append(f"- Source: `{args.json}`; medians of each benchmark's repetitions; cv = spread of the time")
    if plot_note:
        lines.append(f"- {plot_note}")
    if context.get("umsync_parts_missing"):
        lines.append("- **Not in this report** (stopped at the time limit or failed; see bench.txt): " +
                     ", ".join(context["umsync_parts_missing"]))
    lines.append("")
    for family in sorted(families):
        instances = families[family]
        present = counters_of(instances)
        lines.append(f"## {family}")
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
            png = plot_by_size(plt, family, pairs, args.out) if family.startswith("family_a") else None
            png = png or plot_family(plt, family, pairs, args.out)
            lines.append(f"![{family}]({png})")
            lines.append("")
    report = os.path.join(args.out, "report.md")
    with open(report, "w") as f:
        f.write("\n".join(lines))
    print(f"bench_report: wrote {report} ({len(families)} families{', with plots' if plt else ', no plots'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
