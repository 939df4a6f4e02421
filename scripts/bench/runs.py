"""The rows of one benchmark run (Google Benchmark JSON, as umsync_bench writes it), indexed by
family and instance, and the formatting the report, the verdict and the claims share."""
import fnmatch
import json
import math
import re

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



def fmt(value):
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if abs(value) >= 1000:
        return f"{value:,.0f}"
    if abs(value) >= 10:
        return f"{value:.1f}"
    return f"{value:.3f}"



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

