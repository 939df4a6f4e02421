#!/usr/bin/env python3
"""Turns umsync_bench's JSON into a Markdown report: a verdict first, the seeds' claims checked,
then one table per family, with PNG plots.

    python3 scripts/bench_report.py build/default/umsync-bench.json --out build/default/bench-report

Every figure in the report comes from the JSON of one run: medians over its repetitions, the
spread (coefficient of variation) next to them, and the ratios each family measured against its
raw-CUDA baseline or ceiling in the same run.

- Verdict: one row per decision a user faces (DECISIONS below: which benchmark rows each option
  uses), each option's cost as a ratio to the best option and to the ceiling measured in the same
  run, and a one-line verdict; a decision whose rows are not in the run says "not measured in
  this run". The same as one figure, verdict.png (each decision's options normalised to the best).
- Claims checked: each claim of the seeds that a benchmark measures (the table in
  scripts/bench_claims.py, or --claims FILE) next to what this run measured: held, did not hold,
  partly held (at some sizes), or not measured.
- A quick run (--quick, or the JSON context's "umsync_quick" set to 1/true) is marked as such.

Plots need matplotlib (Debian: python3-matplotlib); when it is missing and this runs as root with
apt-get, it is installed; otherwise the report is written without plots and says so.
"""
import argparse
import fnmatch
import importlib.util
import json
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
from dataclasses import dataclass, field

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


# ---- The run, indexed by family and instance --------------------------------------------------


def size_key(instance):
    """The first number in an instance name: the size, warps, kernels or bucket MiB it runs at."""
    match = re.search(r"\d+", instance)
    return int(match.group(0)) if match else None


def human_size(number, unit):
    """'2 GiB' for (2097152, 'KiB'), '1 MiB' for (1048576, 'B'), '32 warps' for (32, 'warps')."""
    if number is None:
        return ""
    if unit in ("B", "KiB", "MiB"):
        value = number * {"B": 1, "KiB": 1 << 10, "MiB": 1 << 20}[unit]
        for name, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
            if value >= scale and value % scale == 0:
                return f"{value // scale} {name}"
        return f"{value} B"
    if number == 1 and unit.endswith("s"):
        unit = unit[:-1]  # 1 warp, 1 kernel
    return f"{number} {unit}".strip()


def cv_of(cvs, counter=None):
    """The spread of `counter` over the repetitions (of the time when the counter has none)."""
    for key in ((counter, "real_time") if isinstance(counter, str) else ("real_time",)):
        value = (cvs or {}).get(key)
        if isinstance(value, (int, float)) and not math.isnan(value):
            return value
    return None


def usable(value):
    return isinstance(value, (int, float)) and not math.isnan(value) and not math.isinf(value) and value > 0


class Run:
    """The rows of one run: family -> instance -> (median row, aggregates); error rows left out."""

    def __init__(self, rows):
        self.families = {}
        for run, aggregates in rows.items():
            self.families.setdefault(family_of(run), {})[instance_of(run)] = (median_row(aggregates), aggregates)

    def rows(self, family, pattern="*"):
        """[(instance, row, cvs)] of `family` whose instance matches the glob `pattern`; cvs: the
        coefficient of variation over the repetitions of the time and of each counter."""
        found = []
        for instance, (row, aggregates) in self.families.get(family, {}).items():
            if row.get("error_occurred") or not fnmatch.fnmatchcase(instance, pattern):
                continue
            found.append((instance, row, aggregates.get("cv", {})))
        return found

    def row(self, family, instance):
        found = [r for i, r, _ in self.rows(family) if i == instance]
        return found[0] if found else None

    def first_value(self, family, counter):
        """`counter` of the family's row with the largest size (the ceilings have one row each)."""
        rows = sorted(self.rows(family), key=lambda r: size_key(r[0]) or 0)
        return rows[-1][1].get(counter) if rows else None


# ---- The verdict: one row per decision ----------------------------------------------------------


@dataclass
class Spec:
    """One option of a decision: `counter` (a counter name, or a function of the row) of the row of
    `family` whose instance is `pattern` with {size} standing for the size the decision picks.
    `ceiling`: the ceiling's cost in the same unit, a counter of the same row or a function of
    (row, run)."""
    label: str
    family: str
    pattern: str
    counter: object
    unit: str
    ceiling: object = None
    counter_text: str = ""  # how a computed counter is computed, for the report


@dataclass
class Option:
    label: str
    value: float
    unit: str
    cv: float = None
    ceiling: float = None  # cost / the ceiling's cost, same run
    instance: str = ""
    ratio: float = 1.0  # cost / the best option's cost


@dataclass
class Decision:
    key: str
    title: str
    timed: str = ""
    ceiling_label: str = ""
    options: list = field(default_factory=list)
    missing: list = field(default_factory=list)  # "label: why" of options not in the run
    verdict: str = ""
    families: tuple = ()
    quick_label: str = ""  # the title in the figure
    ceiling_short: str = "ceiling"  # the ceiling's name in the figure

    @property
    def measured(self):
        return bool(self.options)


def value_of(row, counter, run=None):
    if callable(counter):
        try:
            return counter(row) if run is None else counter(row, run)
        except (KeyError, TypeError, ZeroDivisionError):
            return None
    return row.get(counter)


def sized_options(run, specs, size_unit):
    """The options of `specs` at one size: the size most options measured (the largest of those).
    Returns (options, missing, the size)."""
    by_spec = []
    for spec in specs:
        rx = re.compile(re.escape(spec.pattern).replace(re.escape("{size}"), r"(\d+)"))
        sizes = {}
        for instance, row, cvs in run.rows(spec.family):
            match = rx.fullmatch(instance)
            if match and usable(value_of(row, spec.counter)):
                sizes[int(match.group(1)) if match.groups() else None] = (instance, row, cv_of(cvs, spec.counter))
        by_spec.append(sizes)
    counts = {}
    for sizes in by_spec:
        for size in sizes:
            counts[size] = counts.get(size, 0) + 1
    if not counts:
        return [], [f"{spec.label}: no {spec.family} row" for spec in specs], None
    chosen = max(counts, key=lambda size: (counts[size], size if size is not None else 0))
    options, missing = [], []
    for spec, sizes in zip(specs, by_spec):
        if chosen not in sizes:
            why = f"no {spec.family} row" if not sizes else f"not measured at {human_size(chosen, size_unit)}"
            missing.append(f"{spec.label}: {why}")
            continue
        instance, row, cv = sizes[chosen]
        value = value_of(row, spec.counter)
        ceiling = None
        if spec.ceiling is not None:
            ceiling_cost = value_of(row, spec.ceiling, None if isinstance(spec.ceiling, str) else run)
            ceiling = value / ceiling_cost if usable(ceiling_cost) else None
        counter = spec.counter if isinstance(spec.counter, str) else spec.counter_text
        options.append(Option(spec.label, value, spec.unit, cv, ceiling, f"{spec.family}/{instance}: {counter}"))
    return options, missing, chosen


def fmt_ratio(ratio):
    if ratio is None:
        return ""
    if ratio >= 100:
        return f"{ratio:,.0f}x"
    if ratio >= 10:
        return f"{ratio:.1f}x"
    return f"{ratio:.2f}x"


def and_join(names):
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def noise(*cvs):
    """The spread of a ratio of two medians: their cvs combined (root of the sum of squares), at
    least 2%. Within it, two costs count as the same."""
    known = [cv for cv in cvs if isinstance(cv, (int, float)) and not math.isnan(cv)]
    return max(0.02, math.sqrt(sum(cv * cv for cv in known)))


def rank(decision, extra=""):
    """Orders the options by cost, sets each one's ratio to the best, and writes the verdict line:
    the cheapest option, those within the rows' spread of it, and what the others cost."""
    if not decision.options:
        return decision
    decision.options.sort(key=lambda o: o.value)
    best = decision.options[0]
    for option in decision.options:
        option.ratio = option.value / best.value
    same = [o for o in decision.options[1:] if o.ratio - 1 <= noise(best.cv, o.cv)]
    worse = [o for o in decision.options[1:] if o.ratio - 1 > noise(best.cv, o.cv)]
    costs = "; " + ", ".join(f"{o.label} costs {fmt_ratio(o.ratio)}" for o in worse) + "." if worse else "."
    if len(decision.options) == 1:
        text = f"Only {best.label} was measured: nothing to compare it with."
    elif not worse:
        text = f"{and_join([o.label for o in decision.options])} cost the same within the run's spread: choose on " \
               "other grounds."
    elif same:
        text = f"{and_join([o.label for o in [best] + same])} cost the same within the run's spread: use any of " \
               "them" + costs
    else:
        text = f"Use {best.label}" + costs
    decision.verdict = text[0].upper() + text[1:] + (" " + extra if extra else "")
    return decision


def decide_allocation(run):
    d = Decision("allocation", "Allocation in a step", quick_label="allocation (1 alloc + free + sync)",
                 families=("alloc_cuda_malloc", "alloc_pool_kept_sync_each", "alloc_pool_threshold0_sync_each"))
    specs = [Spec("a pool that keeps its memory", "alloc_pool_kept_sync_each", "{size}/1", "raw_us", "us"),
             Spec("cudaMalloc + cudaFree", "alloc_cuda_malloc", "{size}", "us_per_op", "us"),
             Spec("a pool at release threshold 0 (the default pool's setting)", "alloc_pool_threshold0_sync_each",
                  "{size}/1", "raw_us", "us")]
    d.options, d.missing, size = sized_options(run, specs, "B")
    d.timed = (f"{human_size(size, 'B')}: one allocation, its free and a stream sync, host-timed per allocation "
               "(raw CUDA calls; cudaFree synchronizes by itself). Warm: the kept pool already holds the memory; "
               "cold: threshold 0 hands it back at every sync, cudaMalloc maps it anew")
    extra = ""
    no_sync = run.row("alloc_pool_kept", f"{size}/1")
    if no_sync and usable(no_sync.get("raw_us")):
        extra = f"Without the sync, the kept pool costs {fmt(no_sync['raw_us'])} us per allocation."
    return rank(d, extra)


FAMILY_A = [("migrate on fault (no hints)", "um_no_hints"), ("prefetch", "um_prefetch"),
            ("preferred location + prefetch", "um_preferred_location_prefetch"),
            ("the phase plan (`phase_advisor`)", "phase_advisor_plan"), ("pipelined prefetch", "pipelined_prefetch"),
            ("explicit copies (`step_buffer<device_only>`)", "step_buffer_device_only"),
            ("accessed-by (the data stays on the host)", "um_accessed_by")]


def decide_managed_to_device(run):
    d = Decision("managed_to_device", "Managed memory to the device", quick_label="managed memory: to the device",
                 families=("family_a",), ceiling_label="pinned copy + the same kernel, same iteration")
    specs = [Spec(label, "family_a", f"{name}/{{size}}", "to_device_ms", "ms", "ceiling_to_device_ms")
             for label, name in FAMILY_A]
    d.options, d.missing, size = sized_options(run, specs, "KiB")
    d.timed = (f"{human_size(size, 'KiB')}, cold: the host has just written every byte; event-timed move to the "
               "device + one kernel (the steady state is the row below)")
    return rank(d)


def decide_managed_to_host(run):
    d = Decision("managed_to_host", "Managed memory back to the host", quick_label="managed memory: back to the host",
                 families=("family_a", "family_a_return"),
                 ceiling_label="pinned copy from device memory, same iteration")
    specs = [Spec(label, "family_a", f"{name}/{{size}}", "to_host_ms", "ms", "ceiling_to_host_ms")
             for label, name in FAMILY_A if name not in ("um_accessed_by", "um_preferred_location_prefetch",
                                                         "pipelined_prefetch")]
    specs += [Spec("copy into pinned staging (`copy_async`)", "family_a_return", "copy_to_pinned/{size}", "to_host_ms",
                   "ms", "ceiling_to_host_ms"),
              Spec("prefetch over four streams", "family_a_return", "prefetch_four_streams/{size}", "to_host_ms", "ms",
                   "ceiling_to_host_ms")]
    d.options, d.missing, size = sized_options(run, specs, "KiB")
    d.timed = (f"{human_size(size, 'KiB')}, data resident on the device; host-timed: the move back, a stream sync "
               "and the host reading one word per page")
    return rank(d)


def decide_managed_steady(run):
    d = Decision("managed_steady", "Managed memory, steady state", quick_label="managed memory: kernel on placed data",
                 families=("family_a",), ceiling_label="the same kernel on device memory, same iteration")
    specs = [Spec(label, "family_a", f"{name}/{{size}}", "resident_kernel_us", "us", "ceiling_kernel_us")
             for label, name in FAMILY_A if name in ("um_no_hints", "um_prefetch", "phase_advisor_plan",
                                                     "step_buffer_device_only", "um_accessed_by")]
    d.options, d.missing, size = sized_options(run, specs, "KiB")
    d.timed = (f"{human_size(size, 'KiB')}, warm: the kernel once more on data already where the move left it, "
               "event-timed")
    return rank(d)


def decide_prefetch_streams(run):
    d = Decision("prefetch_streams", "Prefetch to the device: one stream or several",
                 quick_label="prefetch: one stream or several", families=("family_a_entry",),
                 ceiling_label="one pinned copy, same iteration")
    specs = [Spec(label, "family_a_entry", f"{name}/{{size}}", "to_device_ms", "ms", "ceiling_to_device_ms")
             for label, name in (("one prefetch", "one_stream"), ("a prefetch split over 4 streams", "four_streams"),
                                 ("a prefetch split over 8 streams", "eight_streams"))]
    d.options, d.missing, size = sized_options(run, specs, "KiB")
    d.timed = (f"{human_size(size, 'KiB')} of host-resident managed data to the device, no kernel, host-timed until "
               "every stream is done")
    return rank(d)


def decide_cross_stream(run):
    d = Decision("cross_stream", "Ordering work across streams", quick_label="cross-stream ordering (per op)",
                 families=("wrapper_event_edge", "wrapper_stream_sync", "edge_stream_dependency"))
    specs = [Spec("an event edge (record + wait)", "wrapper_event_edge", "-", "raw_us", "us"),
             Spec("a host synchronization (stream)", "wrapper_stream_sync", "-", "raw_us", "us")]
    d.options, d.missing, _ = sized_options(run, specs, "")
    d.missing.append("a device synchronization (`cudaDeviceSynchronize`): no benchmark row; the stream "
                     "synchronization is the closest")
    d.timed = "per operation, each with one empty kernel launch; host-timed over 1,000 (raw CUDA calls)"
    edge = run.row("edge_stream_dependency", "-")
    extra = f"The edge alone, without a kernel, costs {fmt(edge['raw_us'])} us." if edge and usable(
        edge.get("raw_us")) else ""
    return rank(d, extra)


def decide_barrier(run):
    d = Decision("barrier", "Block barrier: named barrier or `__syncthreads()`",
                 quick_label="barrier latency (same warps)", families=("barrier_named_vs_syncthreads",))
    specs = [Spec("a named barrier (umsync)", "barrier_named_vs_syncthreads", "<{size}>", "umsync_cycles", "cycles"),
             Spec("`__syncthreads()`", "barrier_named_vs_syncthreads", "<{size}>", "raw_cycles", "cycles")]
    d.options, d.missing, size = sized_options(run, specs, "warps")
    d.timed = f"cycles per barrier, one block of {human_size(size, 'warps')}, every warp meets (clock64 on the device)"
    points = sorted((size_key(i), r["umsync_cycles"]) for i, r, _ in run.rows("barrier_named_raw_vs_typed")
                    if usable(r.get("umsync_cycles")))
    extra = ""
    if len(points) >= 2:
        extra = (f"What costs is how many warps meet: a named barrier takes {fmt(points[0][1])} cycles over "
                 f"{human_size(points[0][0], 'warps')}, {fmt(points[-1][1])} over "
                 f"{human_size(points[-1][0], 'warps')}.")
    return rank(d, extra)


def decide_warp_specialization(run):
    d = Decision("warp_specialization", "Producer/consumer kernel: warp specialization or `__syncthreads()` lockstep",
                 quick_label="producer/consumer kernel", families=("warp_specialized_pipeline",),
                 ceiling_label="device-to-device copy bandwidth (ceiling_device_to_device), same run")
    ceiling_gbps = run.first_value("ceiling_device_to_device", "GB/s")

    def copy_ceiling_us(row, _run):
        """The time the device-to-device copy ceiling takes for the bytes the kernel moves."""
        return row["umsync_us"] * row["GB/s"] / ceiling_gbps if usable(ceiling_gbps) else None

    family = "warp_specialized_pipeline"
    specs = [Spec("warp specialization with umsync named barriers", family, "{size}", "umsync_us", "us",
                  copy_ceiling_us),
             Spec("warp specialization with raw named barriers", family, "{size}", "raw_us", "us", copy_ceiling_us),
             Spec("`__syncthreads()` lockstep", family, "{size}", lambda row: row["umsync_us"] / row["vs_syncthreads"],
                  "us", copy_ceiling_us, "umsync_us / vs_syncthreads")]
    d.options, d.missing, size = sized_options(run, specs, "blocks")
    d.timed = f"{human_size(size, 'blocks')} of 4 producer + 4 consumer warps, event-timed per kernel"
    return rank(d)


def decide_graph(run):
    d = Decision("graph", "A training-like step: graph replay or stream launches", quick_label="step: graph or streams",
                 families=("graph_step",))
    specs = [Spec("graph replay (umsync capture)", "graph_step", "{size}", "c_step_us", "us"),
             Spec("graph replay (raw capture)", "graph_step", "{size}", "d_step_us", "us"),
             Spec("a pool + stream launches", "graph_step", "{size}", "b_step_us", "us"),
             Spec("cudaMalloc + stream launches", "graph_step", "{size}", "a_step_us", "us")]
    d.options, d.missing, size = sized_options(run, specs, "kernels")
    d.timed = (f"warm: per step of {human_size(size, 'kernels')} on two streams with two allocations, host-timed "
               "over a batch of steps; cold (capture + instantiate + first launch) in the verdict")
    extra = []
    row = run.row("graph_step", str(size)) if size is not None else None
    if row and all(usable(row.get(k)) for k in ("c_capture_us", "c_instantiate_us", "c_first_launch_us",
                                                 "b_step_us", "c_step_us")):
        cold = row["c_capture_us"] + row["c_instantiate_us"] + row["c_first_launch_us"]
        saved = row["b_step_us"] - row["c_step_us"]
        text = f"Cold, the graph costs {fmt(cold)} us once (capture + instantiate + first launch)"
        text += f", paid back after {math.ceil(cold / saved)} steps." if saved > 0 else ", never paid back."
        extra.append(text)
    spans = [r["b_step_us"] / r["c_step_us"] for _, r, _ in run.rows("graph_step")
             if usable(r.get("b_step_us")) and usable(r.get("c_step_us"))]
    if len(spans) >= 2:
        extra.append(f"Replay against streams over every N measured: {fmt_ratio(min(spans))}-"
                     f"{fmt_ratio(max(spans))} faster.")
    return rank(d, " ".join(extra))


LAUNCH_CHAIN_SHORT = 33792  # elements per kernel of family P's launch-bound rows (132 x 256 threads)


def decide_launch_chain(run):
    """A chain of short dependent kernels on one stream, launched four ways (bench/launch_chain_bench.cu,
    family P), umsync's launches; the long-kernel rows say where PDL stops paying."""
    d = Decision("launch_chain", "A chain of short dependent kernels: stream order, PDL, graph or graph of PDL",
                 quick_label="dependent kernels: PDL or graphs",
                 families=("launch_chain_stream", "launch_chain_pdl", "launch_chain_graph", "launch_chain_graph_pdl"))
    pattern = "{size}/" + str(LAUNCH_CHAIN_SHORT)
    specs = [Spec("stream order (umsync::launch)", "launch_chain_stream", pattern, "umsync_us", "us"),
             Spec("PDL (umsync::launch_dependent)", "launch_chain_pdl", pattern, "umsync_us", "us"),
             Spec("graph replay", "launch_chain_graph", pattern, "umsync_us", "us"),
             Spec("graph of PDL launches", "launch_chain_graph_pdl", pattern, "umsync_us", "us")]
    d.options, d.missing, size = sized_options(run, specs, "kernels")
    d.timed = (f"per kernel of a chain of {human_size(size, 'kernels')} ({LAUNCH_CHAIN_SHORT} floats each, one "
               "stream, each reading the previous output), host-timed from the first launch to the stream's sync")
    extra = []
    long_rows = {family: row for family in ("launch_chain_stream", "launch_chain_pdl")
                 for instance, row, _ in run.rows(family) if not instance.endswith("/" + str(LAUNCH_CHAIN_SHORT))}
    if all(usable(r.get("umsync_us")) for r in long_rows.values()) and len(long_rows) == 2:
        gain = long_rows["launch_chain_stream"]["umsync_us"] / long_rows["launch_chain_pdl"]["umsync_us"]
        extra.append(f"With bandwidth-bound kernels (16 Mi floats) PDL is {fmt_ratio(gain)} stream order: the gap "
                     "it hides is small beside the kernel.")
    ratios = [row["ratio"] for family in d.families for _, row, _ in run.rows(family) if usable(row.get("ratio"))]
    if ratios:
        extra.append(f"umsync / raw over the {len(ratios)} rows: {min(ratios):.3f}-{max(ratios):.3f}.")
    return rank(d, " ".join(extra))


CLUSTER_REDUCE_SHORT = 1081344  # floats of family Q's launch-bound rows (1056 blocks x 256 threads x one float4)
CLUSTER_REDUCE_GROUP = 4  # blocks per group the decision ranks at; the other sizes go to the extra text
CLUSTER_REDUCE_WAYS = (("cluster DSMEM (umsync::cluster_shared_scope)", "cluster_reduce_dsmem"),
                       ("global atomics (umsync::launch)", "cluster_reduce_atomic"),
                       ("two kernels (umsync::launch)", "cluster_reduce_two_kernels"))


def decide_cluster_reduction(run):
    """A cross-block reduction three ways (bench/cluster_reduce_bench.cu, family Q), umsync's
    versions, ranked at the launch-bound size in groups of 4 blocks; the extra text gives DSMEM at
    each cluster size measured, and the three ways at the bandwidth-bound size against the copy
    ceiling."""
    d = Decision("cluster_reduction", "A cross-block reduction: cluster DSMEM, global atomics or two kernels",
                 quick_label="cross-block reduction", families=tuple(f for _, f in CLUSTER_REDUCE_WAYS),
                 ceiling_label="device-to-device copy bandwidth (ceiling_device_to_device) for the bytes read, "
                               "same run")
    ceiling_gbps = run.first_value("ceiling_device_to_device", "GB/s")

    def copy_ceiling_us(row, _run=None):
        """The time the device-to-device copy ceiling takes for the bytes the reduction reads."""
        return row["umsync_us"] * row["GB/s"] / ceiling_gbps if usable(ceiling_gbps) else None

    def sizes_of(instance):
        floats, group = instance.split("/")[:2]
        return int(floats), int(group)

    specs = [Spec(label, family, f"{CLUSTER_REDUCE_SHORT}/{CLUSTER_REDUCE_GROUP}", "umsync_us", "us",
                  copy_ceiling_us) for label, family in CLUSTER_REDUCE_WAYS]
    d.options, d.missing, _ = sized_options(run, specs, "")
    d.timed = (f"per reduction of {CLUSTER_REDUCE_SHORT:,} floats (4.1 MiB, launch-bound) by 1,056 blocks in "
               f"groups of {CLUSTER_REDUCE_GROUP} (one sum per group), event-timed over a batch of 32")
    extra = []
    clusters = sorted((sizes_of(i)[1], r["umsync_us"]) for i, r, _ in run.rows("cluster_reduce_dsmem")
                      if sizes_of(i)[0] == CLUSTER_REDUCE_SHORT and usable(r.get("umsync_us")))
    if len(clusters) >= 2:
        best = min(clusters, key=lambda c: c[1])
        extra.append("DSMEM by cluster size (launch-bound): " +
                     ", ".join(f"{blocks} blocks {fmt(us)} us" for blocks, us in clusters) +
                     f"; fastest with {best[0]}.")
    skipped = sorted(i for i, (row, _) in run.families.get("cluster_reduce_dsmem", {}).items()
                     if row.get("error_occurred"))
    if skipped:
        extra.append("Not run: " + ", ".join(f"`cluster_reduce_dsmem/{i}`" for i in skipped) +
                     " (the device could not place the cluster).")
    long_rows = []
    for label, family in CLUSTER_REDUCE_WAYS:
        for instance, row, _ in run.rows(family):
            floats, group = sizes_of(instance)
            if floats != CLUSTER_REDUCE_SHORT and group == CLUSTER_REDUCE_GROUP and usable(row.get("umsync_us")):
                long_rows.append((label.split(" (")[0], floats, row))
    if long_rows:
        parts = []
        for label, _, row in long_rows:
            ceiling = copy_ceiling_us(row) if usable(row.get("GB/s")) else None
            parts.append(f"{label} {fmt(row['umsync_us'])} us" +
                         (f" ({fmt_ratio(row['umsync_us'] / ceiling)} ceiling)" if usable(ceiling) else ""))
        extra.append(f"Bandwidth-bound ({human_size(long_rows[0][1] * 4, 'B')} read, groups of "
                     f"{CLUSTER_REDUCE_GROUP}): " + ", ".join(parts) + ".")
    ratios = [row["ratio"] for family in d.families for _, row, _ in run.rows(family) if usable(row.get("ratio"))]
    if ratios:
        extra.append(f"umsync / raw over the {len(ratios)} rows: {min(ratios):.3f}-{max(ratios):.3f}.")
    return rank(d, " ".join(extra))


TMA_STAGES = (("one stage", "one_stage"), ("two stages", "two_stages"), ("four stages", "four_stages"))
TMA_VERSIONS = (("the umsync pipeline", "umsync_us"), ("hand-written cuda::ptx", "raw_us"),
                ("CUTLASS PipelineTmaAsync", "cutlass_us"), ("plain loads (no shared memory)", "plain_us"))
TMA_CEILING = ("cudaMemcpyAsync device to device of the same 128 MiB in the same iterations (the row's ceiling_us; "
               "the ceiling family's copy is 1 GiB)")


def per_sm_text(size):
    return f"{size} block{'s' if size != 1 else ''} per SM" if size is not None else ""


def tma_cutlass_missing(run, family, missing):
    """The CUTLASS option's "not measured" line: the rows' label says why when it was not built."""
    labels = {row.get("label") for _, row, _ in run.rows(family) if row.get("label")}
    return [f"CUTLASS PipelineTmaAsync: {sorted(labels)[0]}" if m.startswith("CUTLASS") and labels else m
            for m in missing]


def tma_line(run, family, pattern, what):
    """One row's four versions in words, with their fraction of the row's copy ceiling."""
    row = run.row(family, pattern)
    if not row or not usable(row.get("ceiling_us")):
        return ""
    parts = [f"{label.split(' (')[0]} {fmt(row[counter])} us ({fmt_ratio(row[counter] / row['ceiling_us'])} ceiling)"
             for label, counter in TMA_VERSIONS if usable(row.get(counter))]
    return f"{what}: " + ", ".join(parts) + "." if parts else ""


def decide_tma_or_plain(run):
    """A streamed transform through a four-stage TMA pipeline (umsync, hand-written, CUTLASS) or
    with plain loads (bench/tma_pipeline_bench.cu, family T, the copy shape)."""
    d = Decision("tma_or_plain", "A streamed transform: TMA pipeline or plain loads",
                 quick_label="TMA pipeline or plain loads", families=("tma_pipeline_copy",),
                 ceiling_label=TMA_CEILING, ceiling_short="copy ceiling")
    specs = [Spec(label, "tma_pipeline_copy", "four_stages/{size}", counter, "us", "ceiling_us")
             for label, counter in TMA_VERSIONS]
    d.options, d.missing, size = sized_options(run, specs, "")
    d.missing = tma_cutlass_missing(run, "tma_pipeline_copy", d.missing)
    d.timed = (f"128 MiB read and written, one round of an integer hash per word, {per_sm_text(size)}; the pipelines: "
               "4 stages of 8 KiB, one producer thread, 4 consumer warps; event-timed per kernel")
    extra = []
    if size is not None:
        line = tma_line(run, "tma_pipeline_producer_consumer", f"four_stages/{size}",
                        "With 32 rounds per word and 8 consumer warps (tma_pipeline_producer_consumer)")
        if line:
            extra.append(line)
    for counter, name in (("ratio", "umsync / hand-written"), ("umsync_vs_cutlass", "umsync / CUTLASS")):
        ratios = [row[counter] for family in ("tma_pipeline_copy", "tma_pipeline_producer_consumer")
                  for _, row, _ in run.rows(family) if usable(row.get(counter))]
        if ratios:
            extra.append(f"{name} over the {len(ratios)} rows: {min(ratios):.3f}-{max(ratios):.3f}.")
    return rank(d, " ".join(extra))


def decide_tma_stages(run):
    """How many stages the umsync TMA pipeline needs (family T, the copy shape; the
    producer/consumer shape and one block per SM in the extra text)."""
    d = Decision("tma_stages", "TMA pipeline stages: one, two or four",
                 quick_label="TMA pipeline stages", families=("tma_pipeline_copy", "tma_pipeline_producer_consumer"),
                 ceiling_label=TMA_CEILING, ceiling_short="copy ceiling")
    specs = [Spec(f"{label} (umsync)", "tma_pipeline_copy", f"{word}/{{size}}", "umsync_us", "us", "ceiling_us")
             for label, word in TMA_STAGES]
    d.options, d.missing, size = sized_options(run, specs, "")
    d.timed = (f"the copy pipeline (128 MiB, one round per word, 4 consumer warps), {per_sm_text(size)}, stages of "
               "8 KiB; event-timed per kernel")
    extra = []
    for family, what in (("tma_pipeline_producer_consumer", "With 32 rounds per word and 8 consumer warps"),
                         ("tma_pipeline_copy", "The copy pipeline")):
        for per_sm in sorted({size_key(i) for i, _, _ in run.rows(family)}):
            if family == "tma_pipeline_copy" and per_sm == size:
                continue  # the options above
            points = [(label, run.row(family, f"{word}/{per_sm}")) for label, word in TMA_STAGES]
            points = [(label, row) for label, row in points if row and usable(row.get("umsync_us"))]
            if len(points) >= 2:
                extra.append(f"{what} at {per_sm_text(per_sm)}: " +
                             ", ".join(f"{label} {fmt(row['umsync_us'])} us" for label, row in points) + ".")
    return rank(d, " ".join(extra))


def decide_allreduce(run):
    d = Decision("allreduce", "Gradient all-reduce: overlapped with compute or serial, and the bucket size",
                 quick_label="all-reduce overlap (one GPU)", families=("nccl_overlap_efficiency",),
                 ceiling_label="perfect overlap: the longer of compute alone and all-reduce alone, same bucket",
                 ceiling_short="perfect overlap")
    rows = [(size_key(i), r, cvs) for i, r, cvs in run.rows("nccl_overlap_efficiency")
            if all(usable(r.get(k)) for k in ("overlapped_ms", "serial_ms", "compute_ms", "comm_ms"))]
    if not rows:
        d.missing.append("overlapped and serial loops: no nccl_overlap_efficiency row (a build without NCCL?)")
        return d

    def per_gib(bucket, row):
        """ms per GiB of gradients (buckets x bucket MiB; the benchmark keeps at least 4 buckets)."""
        return 1024.0 / (bucket * row["buckets"]) if usable(row.get("buckets")) else None

    scaled = all(per_gib(b, r) for b, r, _ in rows)
    unit = "ms per GiB" if scaled else "ms"
    how = " x 1024 / (buckets x bucket MiB)" if scaled else ""
    for bucket, row, cvs in sorted(rows, key=lambda r: r[0]):
        k = per_gib(bucket, row) if scaled else 1.0
        bound = max(row["compute_ms"], row["comm_ms"])
        d.options.append(Option(f"overlap with {bucket} MiB buckets", row["overlapped_ms"] * k, unit,
                                cv_of(cvs, "overlapped_ms"), row["overlapped_ms"] / bound,
                                f"nccl_overlap_efficiency/{bucket}: overlapped_ms{how}"))
    bucket, row, cvs = min(rows, key=lambda r: r[1]["serial_ms"] * (per_gib(r[0], r[1]) if scaled else 1.0))
    d.options.append(Option(f"serial with {bucket} MiB buckets (the best serial)",
                            row["serial_ms"] * (per_gib(bucket, row) if scaled else 1.0), unit, cv_of(cvs, "serial_ms"),
                            row["serial_ms"] / max(row["compute_ms"], row["comm_ms"]),
                            f"nccl_overlap_efficiency/{bucket}: serial_ms{how}"))
    totals = sorted({round(b * r["buckets"]) for b, r, _ in rows if usable(r.get("buckets"))})
    gradients = ", ".join(human_size(t, "MiB") for t in totals) or "the gradients"
    d.timed = (f"per backward step ({gradients} of gradients, in buckets), event-timed, "
               f"{'scaled to ms per GiB of gradients' if scaled else 'ms per step'}; one GPU (a one-rank communicator: "
               "the overlap measured is contention on one device, not network overlap)")
    losing = [b for b, r, _ in sorted(rows, key=lambda r: r[0]) if r["overlapped_ms"] > r["serial_ms"]]
    extra = ""
    if losing:
        extra = ("Overlap is slower than serial at " + ", ".join(f"{b}" for b in losing) + " MiB buckets.")
    return rank(d, extra)


def decide_paired(run, key, title, quick_label, prefixes=None, timed_what="rows", raw_label="raw CUDA"):
    """Rows that pair umsync with raw CUDA in the same iterations (a 'ratio' counter next to a
    'raw_*' one), of the families named by `prefixes` (all families when None): raw CUDA, the
    median pair and the slowest pair, as ratios to raw."""
    d = Decision(key, title, quick_label=quick_label)
    pairs = []
    for family in sorted(run.families):
        if prefixes is not None and not family.startswith(prefixes):
            continue
        for instance, row, cvs in run.rows(family):
            if usable(row.get("ratio")) and any(k.startswith("raw_") for k in row):
                pairs.append((row["ratio"], f"{family}/{instance}", cv_of(cvs, "ratio")))
    if not pairs:
        d.missing.append("no row pairs umsync with raw CUDA" if prefixes is None else
                         "no " + " or ".join(f"{p}*" for p in prefixes) + " row in this run")
        return d
    d.families = tuple(sorted({family for family in run.families for _, name, _ in pairs
                               if name.startswith(family + "/")}))
    ratios = [r for r, _, _ in pairs]
    median = statistics.median(ratios)
    slowest = max(pairs)
    d.options = [Option(raw_label, 1.0, "x raw", instance="1 by definition"),
                 Option("umsync, the median pair", median, "x raw", instance=f"the median of {len(pairs)} rows' ratio"),
                 Option(f"umsync, the slowest pair (`{slowest[1]}`)", slowest[0], "x raw", slowest[2],
                        instance=f"{slowest[1]}: ratio")]
    d.timed = (f"{len(pairs)} {timed_what} that run {raw_label} and umsync side by side in the same iterations; "
               "cost = umsync / raw")
    beyond = [(r, name) for r, name, cv in pairs if abs(r - 1) > noise(cv)]
    d.options.sort(key=lambda o: o.value)
    best = d.options[0]
    for option in d.options:
        option.ratio = option.value / best.value
    text = f"umsync / raw spans {min(ratios):.3f}-{max(ratios):.3f} over {len(pairs)} pairs, median {median:.3f}. "
    if not beyond:
        text += "Every pair is within its spread of 1: no measurable overhead."
    else:
        text += (f"{len(pairs) - len(beyond)} within their spread; beyond it: " +
                 ", ".join(f"`{name}` {r:.3f}" for r, name in sorted(beyond)) + ".")
    d.verdict = text
    return d


def decide_library_calls(run):
    """cuBLAS, CUB and Thrust through umsync::library_call and umsync::exec_policy, each paired
    with the raw call (bench/library_call_bench.cu)."""
    return decide_paired(run, "library_calls", "Library calls (cuBLAS, CUB, Thrust) through umsync or raw",
                         "library calls: umsync / raw", prefixes=("library_call_",),
                         timed_what="library calls (GEMM, reductions; small and large)",
                         raw_label="the raw library call")


def decide_resource_allocation(run):
    """umsync buffers from an RMM resource, paired with the resource called directly
    (bench/rmm_bench.cu; only in builds with umsync::rmm)."""
    return decide_paired(run, "resources", "Buffers from an RMM resource: through a umsync buffer or the resource "
                         "directly", "RMM resource: umsync / direct", prefixes=("rmm_",),
                         timed_what="allocate + free pairs", raw_label="the resource called directly")


def decide_wrappers(run):
    """Every row that pairs umsync with raw CUDA in the same iterations: library calls, edges,
    launches, pools, graphs, barriers, NCCL, resources, as they land."""
    return decide_paired(run, "wrappers", "umsync's typed calls or the raw CUDA calls they wrap",
                         "umsync / raw CUDA (paired rows)")


# The decisions, in the report's order. Each function reads its rows from the run (see the Spec
# lists above for which benchmark rows each option uses) and returns a Decision; a decision with
# no option measured is listed as "not measured in this run".
DECISIONS = [decide_allocation, decide_managed_to_device, decide_managed_to_host, decide_managed_steady,
             decide_prefetch_streams, decide_cross_stream, decide_barrier, decide_warp_specialization, decide_graph,
             decide_launch_chain, decide_cluster_reduction, decide_tma_or_plain, decide_tma_stages, decide_allreduce,
             decide_library_calls, decide_resource_allocation, decide_wrappers]


def decide(run):
    decisions = [fn(run) for fn in DECISIONS]
    for d in decisions:
        if not d.measured:
            d.verdict = "not measured in this run"
    return decisions


def verdict_lines(decisions, run, figure):
    lines = ["## Verdict", ""]
    lines.append("Which choice costs what on this GPU, from this run's rows. Each option: its cost (median), ×best = "
                 "cost / the cheapest option's, ×ceiling = cost / the hardware ceiling measured in the same run "
                 "(where one applies). Which rows each option uses: `DECISIONS` in `scripts/bench_report.py`; "
                 "the rows themselves are in the family tables below.")
    lines.append("")
    if figure:
        lines.append(f"![verdict: each decision's options, cost normalised to the best]({figure})")
        lines.append("")
    lines.append("| Decision (what is timed) | Options: cost, ×best, ×ceiling | Verdict |")
    lines.append("|---|---|---|")
    for d in decisions:
        head = f"**{d.title}**"
        if d.timed and d.measured:
            head += f"<br>{d.timed}"
        if d.ceiling_label and any(o.ceiling for o in d.options):
            head += f"<br>ceiling: {d.ceiling_label}"
        cells = []
        for o in d.options:
            text = f"{o.label}: {fmt(o.value)} {o.unit}, {fmt_ratio(o.ratio)}"
            if o.ceiling is not None:
                text += f", {fmt_ratio(o.ceiling)} {d.ceiling_short}"
            cells.append(f"**{text}**" if o is d.options[0] and len(d.options) > 1 else text)
        for why in d.missing:
            cells.append(f"not measured: {why}")
        verdict = d.verdict if d.measured else "**not measured in this run**"
        lines.append(f"| {head} | {'<br>'.join(cells) or '-'} | {verdict} |")
    lines.append("")
    lines.append("<details><summary>The rows each option uses (family/instance: counter)</summary>")
    lines.append("")
    for d in decisions:
        if d.options:
            lines.append(f"- {d.title}: " + "; ".join(f"{o.label} = `{o.instance}`" for o in d.options))
    lines.append("")
    lines.append("</details>")
    lines.append("")
    ceilings = []
    for family in sorted(f for f in run.families if f.startswith("ceiling_")):
        for instance, row, _ in run.rows(family):
            if usable(row.get("GB/s")):
                ceilings.append(f"{family.replace('ceiling_', '').replace('_', ' ')} "
                                f"{fmt(row['GB/s'])} GB/s ({human_size(size_key(instance), 'MiB')})")
    if ceilings:
        lines.append("Hardware ceilings measured in this run (the ceiling family): " + "; ".join(ceilings) +
                     ". Rows with a ceiling of their own measure it in the same iteration.")
        lines.append("")
    covered = {f for d in decisions for f in d.families}
    others = sorted(f for f in run.families if f not in covered and not f.startswith("ceiling_")
                    and run.rows(f))
    if others:
        lines.append("In this run without a decision of their own (their tables are below): " +
                     ", ".join(f"`{f}`" for f in others) + ".")
        lines.append("")
    return lines


# ---- Claims checked ---------------------------------------------------------------------------


def load_claims(path):
    spec = importlib.util.spec_from_file_location("bench_claims", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.CLAIMS


def pick_rows(rows, how):
    rows = [r for r in rows if size_key(r[0]) is not None] or rows
    if how == "all" or len(rows) <= 1:
        return rows
    ordered = sorted(rows, key=lambda r: size_key(r[0]) or 0)
    return [ordered[-1]] if how == "largest" else [ordered[0]]


def claim_pairs(claim, run):
    """[(a instance, a value, b instance, b value, cv a, cv b)] the claim's test compares; None when
    the rows are there but not at the sizes the claim needs."""
    family, pattern, counter = claim["a"]
    rows_a = [r for r in run.rows(family, pattern) if usable(r[1].get(counter))]
    b = claim["b"]
    if isinstance(b, str):
        return [(i, row[counter], i, row[b], cv_of(cvs, counter), cv_of(cvs, b)) for i, row, cvs in pick_rows(
            [r for r in rows_a if usable(r[1].get(b))], claim.get("pick", "all"))]
    family_b, pattern_b, counter_b = b
    rows_b = [r for r in run.rows(family_b, pattern_b) if usable(r[1].get(counter_b))]
    if claim.get("pair") == "each":
        pick_a, pick_b = claim.get("pick", ("largest", "largest"))
        chosen_a, chosen_b = pick_rows(rows_a, pick_a), pick_rows(rows_b, pick_b)
        if not chosen_a or not chosen_b:
            return []
        (ia, ra, ca), (ib, rb, cb) = chosen_a[0], chosen_b[0]
        if claim.get("sizes") == "a_smaller" and not (size_key(ia) or 0) < (size_key(ib) or 0):
            return None  # e.g. a quick run that measured barriers at one warp count only
        return [(ia, ra[counter], ib, rb[counter_b], cv_of(ca, counter), cv_of(cb, counter_b))]
    by_size = {size_key(i): (i, r, cv) for i, r, cv in rows_b}
    paired = [(ia, ra, ca) for ia, ra, ca in rows_a if size_key(ia) in by_size]
    found = []
    for ia, ra, ca in pick_rows(paired, claim.get("pick", "all")):
        ib, rb, cb = by_size[size_key(ia)]
        found.append((ia, ra[counter], ib, rb[counter_b], cv_of(ca, counter), cv_of(cb, counter_b)))
    return found


def check_claim(claim, run):
    """{'verdict', 'measured'}: the claim's test on this run's rows."""
    if not claim.get("a"):
        return {"verdict": "not measured", "measured": f"not measured: {claim.get('why', 'no benchmark row')}"}
    pairs = claim_pairs(claim, run)
    if pairs is None:
        return {"verdict": "not measured", "measured": "not measured in this run (it needs a smaller size for a "
                                                       "than for b; the run measured one)"}
    if not pairs:
        return {"verdict": "not measured", "measured": "not measured in this run (its rows are missing)"}
    unit = claim.get("size_unit", "")
    held, parts = 0, []
    for ia, va, ib, vb, ca, cb in pairs:
        ratio = va / vb
        tolerance = noise(ca, cb)
        if claim["expect"] == "at_least":
            ok = ratio >= claim["figure"] * (1 - tolerance)
        else:
            ok = ratio <= claim["figure"] * (1 + tolerance)
        held += ok
        where = human_size(size_key(ia), unit) if ia == ib or size_key(ia) == size_key(ib) else (
            f"{human_size(size_key(ia), unit)} vs {human_size(size_key(ib), unit)}")
        parts.append(f"{fmt(ratio)}x{' at ' + where if where else ''} ({fmt(va)} / {fmt(vb)})")
    if held == len(pairs):
        verdict = "held"
    elif held == 0:
        verdict = "did not hold"
    else:
        verdict = f"partly held ({held} of {len(pairs)})"
    return {"verdict": verdict, "measured": "; ".join(parts)}


def claims_lines(claims, run, source):
    lines = ["## Claims checked", ""]
    lines.append(f"The seeds' claims that a benchmark measures (paraphrased; the table and how each is tested: "
                 f"`{source}`), next to what this run measured. A claim holds when the measured ratio reaches the "
                 "seed's figure within the spread of the two values (their cvs over the repetitions combined, at "
                 "least 2%); over several sizes it holds "
                 "when it holds at each. The seeds' API names and figures were unverified: only this column is "
                 "measured.")
    lines.append("")
    lines.append("| # | Seed | Claim | Seed's figure | Test (ratio a / b) | Measured in this run | Verdict |")
    lines.append("|---|---|---|---|---|---|---|")
    for claim in claims:
        result = check_claim(claim, run)
        test = claim.get("note", "")
        if claim.get("a"):
            sign = ">=" if claim["expect"] == "at_least" else "<="
            test += f"; holds if {sign} {claim['figure']:.3g}"
        verdict = result["verdict"]
        shown = f"**{verdict}**" if verdict in ("held", "did not hold") or verdict.startswith("partly") else verdict
        lines.append(f"| {claim['id']} | {claim['seed']} | {claim['claim']} | {claim.get('claimed', '')} | {test} | "
                     f"{result['measured']} | {shown} |")
    lines.append("")
    return lines


# ---- The verdict as one figure ------------------------------------------------------------------


def plot_verdict(plt, decisions, out_dir, title):
    measured = [d for d in decisions if len(d.options) >= 1]
    if not measured:
        return None
    columns = 2
    rows = math.ceil(len(measured) / columns)
    heights = [max(len(d.options) for d in measured[r * columns:(r + 1) * columns]) for r in range(rows)]
    fig, axes = plt.subplots(rows, columns, figsize=(15, 0.42 * sum(heights) + 1.1 * rows + 0.8),
                             gridspec_kw={"height_ratios": heights}, squeeze=False)
    for ax, d in zip(axes.flat, measured):
        options = list(reversed(d.options))  # the best on top
        ratios = [o.ratio for o in options]
        colors = ["#2e7d32" if o is d.options[0] else ("#9e9e9e" if o.ratio - 1 <= noise(d.options[0].cv, o.cv)
                                                       else "#e65100") for o in options]
        best = d.options[0]
        ceiling = 1.0 / best.ceiling if best.ceiling else None  # the ceiling's cost / the best option's
        low = min([1.0] + ([ceiling] if ceiling else []))
        log = max(ratios) > 20
        left = 0.7 * low if log else 0.0
        ax.barh(range(len(options)), [r - left for r in ratios], left=left, color=colors)
        ax.set_yticks(range(len(options)))
        labels = [o.label.replace("`", "") for o in options]
        ax.set_yticklabels([t if len(t) <= 48 else t[:46] + "..." for t in labels], fontsize=8)
        if log:
            ax.set_xscale("log")
        ax.set_xlim(left=left, right=max(ratios) * (3.0 if log else 1.45))
        for y, o in enumerate(options):
            ax.text(o.ratio, y, f" {fmt_ratio(o.ratio)} ({fmt(o.value)} {o.unit})", va="center", fontsize=7)
        if ceiling:
            ax.axvline(ceiling, color="#1565c0", linestyle="--", linewidth=1.0)
            ax.text(ceiling, len(options) - 0.55, " " + d.ceiling_short, color="#1565c0", fontsize=7, va="bottom")
        ax.set_ylim(-0.6, len(options) - 0.1 if ceiling else len(options) - 0.4)
        ax.axvline(1.0, color="black", linewidth=0.6)
        ax.set_title(d.quick_label or d.title.replace("`", ""), fontsize=9, loc="left")
        ax.tick_params(axis="x", labelsize=7)
    for ax in list(axes.flat)[len(measured):]:
        ax.axis("off")
    fig.suptitle(title, fontsize=11)
    fig.text(0.5, 0.005, "cost / the cheapest option (green; grey: within the run's spread of it; orange: beyond); "
             "dashed: the hardware ceiling measured in the same run, where one applies",
             ha="center", fontsize=8)
    fig.tight_layout(rect=(0, 0.02, 1, 0.97))
    path = os.path.join(out_dir, "verdict.png")
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return os.path.basename(path)


# ---- The report ---------------------------------------------------------------------------------

# Google Benchmark's own context keys and those the header prints already.
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
    parser.add_argument("--no-plots", action="store_true", help="tables only: neither plot nor install matplotlib")
    parser.add_argument("--quick", action="store_true",
                        help="mark the report as a quick run's (also when the JSON context has umsync_quick=1)")
    parser.add_argument("--claims", default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                         "bench_claims.py"),
                        help="the claims table (a Python file with CLAIMS; default: scripts/bench_claims.py)")
    parser.add_argument("--note", action="append", default=[], help="a line to add to the report's header")
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
        figure = plot_verdict(plt, decisions, args.out, title + (" (quick run)" if quick else ""))
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
            png = plot_by_size(plt, family, pairs, args.out) if family.startswith("family_a") else None
            png = png or plot_family(plt, family, pairs, args.out)
            lines.append(f"![{family}]({png})")
            lines.append("")
    report = os.path.join(args.out, "report.md")
    with open(report, "w") as f:
        f.write("\n".join(lines))
    measured = sum(d.measured for d in decisions)
    print(f"bench_report: wrote {report} ({len(families)} families, {measured} of {len(decisions)} decisions measured"
          f"{', quick run' if quick else ''}{', with plots' if plt else ', no plots'})")
    return 0


# What each family times, cold or warm; printed under its heading.
FAMILY_NOTES = {
    "alloc_cuda_malloc": "Host-timed per cudaMalloc + cudaFree (cudaFree synchronizes the device).",
    "alloc_pool_kept": "Host-timed per allocation + free from a pool that keeps its memory (warm), raw CUDA and "
                       "umsync side by side; instance: bytes/streams.",
    "alloc_pool_kept_sync_each": "As alloc_pool_kept, with a stream sync after each free (warm pool).",
    "alloc_pool_threshold0_sync_each": "A pool at release threshold 0 with a stream sync after each free: the memory "
                                       "goes back at every sync, so each allocation is cold.",
    "family_a": "Per strategy/size (KiB): `to_device` = cold (host-written data moved + one kernel, event-timed); "
                "`resident` = warm (the kernel again on placed data); `to_host` = move back + host reads (host-timed); "
                "`ceiling_*` = pinned copies with device memory in the same iteration.",
    "family_a_advisor_vs_prefetch": "The phase plan and raw prefetch on two buffers, paired in every iteration; "
                                    "ratio = plan / raw.",
    "family_a_entry": "Host-resident managed data prefetched to the device (no kernel), split over streams; "
                      "`fraction_of_pinned` = pinned-copy time / this time, same iteration.",
    "family_a_return": "Device-resident managed data back to the host + host reads; `fraction_of_pinned` = pinned-copy "
                       "time / this time, same iteration.",
    "graph_step": "Per step (instance: kernels), warm: a = cudaMalloc + streams, b = pool + streams, c = graph replay "
                  "(umsync capture), d = graph replay (raw capture); cold: `*_capture_us`, `*_instantiate_us`, "
                  "`*_first_launch_us`.",
    "warp_specialized_pipeline": "Event-timed per kernel (instance: blocks); GB/s counts bytes read + written.",
    "tma_pipeline_copy": "Event-timed per kernel (instance: stages/blocks per SM), 128 MiB read + written, one round "
                         "per word: umsync, hand-written (raw), CUTLASS and plain loads in the same iterations; "
                         "`*_fraction` = the same-size device-to-device copy (`ceiling_us`) / the version's time.",
    "tma_pipeline_producer_consumer": "As tma_pipeline_copy with 32 rounds per word and 8 consumer warps.",
}


if __name__ == "__main__":
    sys.exit(main())
