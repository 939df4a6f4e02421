#!/usr/bin/env python3
"""Compile cost of umsync: the same small program compiled with and without umsync's headers.

    bash scripts/compile-cost.sh [--repeat N] [--include DIR] [--phases] [--per-header]
                                 [--with-include HEADER]... [--only NAME,...] [--nvcc PATH]

Programs (scripts/compile-cost/):
  raw          a kernel, a non-blocking stream, cudaMallocAsync, a <<<>>> launch, every call checked
  umsync_all   the same with umsync::stream, async_pool_buffer and launch, via <umsync/umsync.hpp>
  umsync_lean  the same, including only <umsync/stream.hpp>, <umsync/memory/async_pool_buffer.hpp>
               and <umsync/launch.hpp>
  thrust       thrust::device_vector + thrust::transform, a familiar reference

Each program is compiled --repeat times (default 3), interleaved (raw, all, lean, thrust, raw,
...), with umsync's flags for sm_90: nvcc -std=c++20 -arch=sm_90 -O2 -I DIR -c X.cu -o /dev/null.
The table gives the median wall seconds, the ratio to raw's median, and the preprocessed lines of
the host pass (nvcc -E -U__CUDA_ARCH__, which is what cudafe++ parses). --phases adds, from
nvcc --time, the median seconds of the phases that matter: cudafe++ (the EDG front end of the host
pass), cicc (front end and optimizer of the device pass), gcc (the host compiler on cudafe++'s
output), ptxas, and both preprocessor runs together.

--with-include HEADER adds a row: raw.cu with `#include HEADER` in front (e.g. '<string>',
'<cuda/stream_ref>', 'umsync/error.hpp'; a bare name gets angle brackets). --per-header adds one
such row for every public umsync header reached from umsync.hpp. --include DIR measures another
copy of umsync's headers (e.g. `git archive HEAD include | tar -x -C /tmp/head` while the work
tree is mid-edit, or an experiment). Markdown on stdout, progress on stderr; exit 0, or 1 when a
program failed to compile (its error is shown).
"""
import argparse
import csv
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROGRAMS = os.path.join(ROOT, "scripts", "compile-cost")
DEFAULT_PROGRAMS = ["raw", "umsync_all", "umsync_lean", "thrust"]
# nvcc --time phase names -> the column they are summed into.
PHASE_COLUMNS = [
    ("cudafe++", "cudafe++"),
    ("cicc", "cicc"),
    ("gcc (compiling)", "host cc"),
    ("ptxas", "ptxas"),
    ("gcc (preprocessing", "cpp x2"),
]


def find_nvcc(explicit):
    for candidate in (explicit, os.environ.get("CUDACXX"), shutil.which("nvcc"), "/usr/local/cuda/bin/nvcc"):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    sys.exit("compile-cost: nvcc not found (pass --nvcc PATH or set CUDACXX)")


def umsync_headers(include_dir):
    """The umsync headers reached from umsync.hpp, in the order first reached."""
    order, seen = [], set()

    def walk(name):
        if name in seen:
            return
        seen.add(name)
        path = os.path.join(include_dir, name)
        if not os.path.exists(path):
            return
        order.append(name)
        with open(path) as f:
            for included in re.findall(r'^\s*#\s*include\s*[<"](umsync/[^>"]+)[>"]', f.read(), re.M):
                walk(included)

    walk("umsync/umsync.hpp")
    return [h for h in order if "/detail/" not in h and h != "umsync/umsync.hpp"]


def phase_seconds(csv_path):
    """Seconds per column from an nvcc --time CSV."""
    totals = {column: 0.0 for _, column in PHASE_COLUMNS}
    with open(csv_path, newline="") as f:
        rows = list(csv.reader(f))
    for row in rows[1:]:
        if len(row) < 8:
            continue
        phase, value, unit = row[1].strip(), row[6].strip(), row[7].strip()
        for prefix, column in PHASE_COLUMNS:
            if phase.startswith(prefix):
                seconds = float(value) / (1000.0 if unit == "ms" else 1.0)
                totals[column] += seconds
                break
    return totals


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=3, help="compiles per program (default 3)")
    parser.add_argument("--include", default=os.path.join(ROOT, "include"),
                        help="umsync's include directory (default: the repository's include/)")
    parser.add_argument("--nvcc", help="nvcc to use (default: $CUDACXX, nvcc on PATH, /usr/local/cuda/bin/nvcc)")
    parser.add_argument("--arch", default="90", help="SM architecture (default 90)")
    parser.add_argument("--only", help="comma-separated subset of " + ",".join(DEFAULT_PROGRAMS))
    parser.add_argument("--with-include", action="append", default=[], metavar="HEADER",
                        help="add a row: raw.cu with `#include HEADER` in front (repeatable)")
    parser.add_argument("--per-header", action="store_true",
                        help="add a row for every public umsync header reached from umsync.hpp")
    parser.add_argument("--phases", action="store_true", help="add nvcc --time phase columns")
    args = parser.parse_args()
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")

    nvcc = find_nvcc(args.nvcc)
    include_dir = os.path.abspath(args.include)
    if not os.path.exists(os.path.join(include_dir, "umsync", "umsync.hpp")):
        sys.exit(f"compile-cost: {include_dir}/umsync/umsync.hpp not found")

    names = args.only.split(",") if args.only else list(DEFAULT_PROGRAMS)
    unknown = [n for n in names if n not in DEFAULT_PROGRAMS]
    if unknown:
        parser.error(f"unknown program(s) {unknown}; known: {DEFAULT_PROGRAMS}")
    if "raw" not in names:
        names.insert(0, "raw")
    programs = [(n, os.path.join(PROGRAMS, n + ".cu")) for n in names]

    work = tempfile.mkdtemp(prefix="umsync-compile-cost-")
    try:
        extra = list(args.with_include)
        if args.per_header:
            extra += umsync_headers(include_dir)
        with open(os.path.join(PROGRAMS, "raw.cu")) as f:
            raw_text = f.read()
        for i, header in enumerate(extra):
            spelled = header if header[0] in "<\"" else f"<{header}>"
            path = os.path.join(work, f"with_{i}.cu")
            with open(path, "w") as f:
                f.write(f"#include {spelled}\n{raw_text}")
            programs.append((f"raw + {spelled}", path))

        flags = [f"-std=c++20", f"-arch=sm_{args.arch}", "-O2", "-I", include_dir]
        times = {name: [] for name, _ in programs}
        cpu_times = {name: [] for name, _ in programs}
        load_before = os.getloadavg()[0]
        phases = {name: [] for name, _ in programs}
        failed = {}
        csv_path = os.path.join(work, "time.csv")
        for run in range(args.repeat):
            for name, source in programs:
                if name in failed:
                    continue
                if os.path.exists(csv_path):
                    os.remove(csv_path)
                command = [nvcc, *flags, "-c", source, "-o", "/dev/null", "--time", csv_path]
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                start = time.perf_counter()
                result = subprocess.run(command, cwd=work, capture_output=True, text=True)
                elapsed = time.perf_counter() - start
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
                if result.returncode != 0:
                    failed[name] = (result.stdout + result.stderr).strip()
                    print(f"compile-cost: {name} failed to compile:\n{failed[name]}", file=sys.stderr)
                    continue
                times[name].append(elapsed)
                cpu_times[name].append(cpu)
                phases[name].append(phase_seconds(csv_path))
                print(f"compile-cost: run {run + 1}/{args.repeat} {name}: {elapsed:.2f} s wall, {cpu:.2f} s CPU",
                      file=sys.stderr)

        lines = {}
        for name, source in programs:
            result = subprocess.run([nvcc, *flags, "-E", "-U__CUDA_ARCH__", source], cwd=work,
                                    capture_output=True, text=True)
            lines[name] = result.stdout.count("\n") if result.returncode == 0 else None

        version = subprocess.run([nvcc, "--version"], capture_output=True, text=True).stdout.strip().splitlines()
        print(f"nvcc: {version[-1] if version else nvcc}; flags: {' '.join(flags[:3])} -I <include> -c; "
              f"umsync headers: {include_dir}; {args.repeat} run(s) each, interleaved; "
              f"{os.cpu_count()} CPU(s), load average {load_before:.2f} at the start, "
              f"{os.getloadavg()[0]:.2f} at the end\n")
        header = ["program", "median s", "x raw", "CPU s", "CPU x raw", "preprocessed lines"]
        if args.phases:
            header += [column for _, column in PHASE_COLUMNS]
        print("| " + " | ".join(header) + " |")
        print("|" + "|".join(["---"] + ["---:"] * (len(header) - 1)) + "|")
        raw_median = statistics.median(times["raw"]) if times["raw"] else None
        raw_cpu = statistics.median(cpu_times["raw"]) if cpu_times["raw"] else None
        for name, _ in programs:
            if name in failed or not times[name]:
                cells = [name, "failed", "", "", "", ""] + ([""] * len(PHASE_COLUMNS) if args.phases else [])
            else:
                median = statistics.median(times[name])
                ratio = f"{median / raw_median:.2f}" if raw_median else ""
                cpu = statistics.median(cpu_times[name])
                cpu_ratio = f"{cpu / raw_cpu:.2f}" if raw_cpu else ""
                count = f"{lines[name]:,}" if lines[name] is not None else "?"
                cells = [name.replace("|", "\\|"), f"{median:.2f}", ratio, f"{cpu:.2f}", cpu_ratio, count]
                if args.phases:
                    cells += [f"{statistics.median(p[column] for p in phases[name]):.2f}"
                              for _, column in PHASE_COLUMNS]
            print("| " + " | ".join(cells) + " |")
        return 1 if failed else 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
