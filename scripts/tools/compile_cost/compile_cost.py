#!/usr/bin/env python3
"""Compile cost of umsync: the same small program compiled with and without umsync's headers.

    python3 scripts/tools/compile_cost/compile_cost.py [--repeat N] [--include DIR | --rev REV] [--phases] [--per-header]
                                 [--with-include HEADER]... [--only NAME,...] [--nvcc PATH] [--arch SM]
                                 [--budget NAME=RATIO]... [--no-lines]

Programs (scripts/tools/compile_cost/), each measured against its raw twin:
  raw           a kernel, a non-blocking stream, cudaMallocAsync, a <<<>>> launch, every call checked
  umsync_all    the same with umsync::stream, stream_buffer and launch, via <umsync/umsync.hpp>
  umsync_lean   the same, including only the common path's headers: <umsync/stream.hpp>,
                <umsync/event.hpp>, <umsync/memory/stream_buffer.hpp>, <umsync/stream_edge.hpp>
                and <umsync/launch.hpp>
  thrust        thrust::device_vector + thrust::transform, a familiar reference (against raw)
  raw_large     a training-step-sized program: three streams, eleven buffers, events, a dozen
                kernels (large_kernels.cuh), a library call, copies and memsets, all raw CUDA
  umsync_large  raw_large's program with umsync's streams, buffers, edges, launch, library_call,
                fill and copy_async, via <umsync/umsync.hpp> (against raw_large)
  umsync_*_separate  the same three compiled with UMSYNC_SEPARATE_COMPILATION, as the files of
                a program that links umsync's compiled part (umsync/separate_compilation.hpp)

Each program is compiled --repeat times (default 3), interleaved (raw, all, lean, thrust, raw,
...), as umsync's builds compile for sm_90: nvcc -std=c++20 -arch=sm_90 -O2 -I DIR -c X.cu -o
/dev/null. The table gives per program the best (least) CPU seconds of nvcc and its children
(user + system; steadier than wall time when other work shares the machine) and its ratio to its
raw twin's best, the best wall seconds and its ratio, and the lines of the host pass's
preprocessed source (nvcc -E -U__CUDA_ARCH__: what cudafe++ parses; --no-lines skips it). The
best of N is the figure least disturbed by other work on the machine: noise only ever adds time.
--phases adds, from nvcc --time, the phases of the compile with the best CPU time: cudafe++ (the
EDG front end on the host pass), cicc (front end and optimizer of the device pass, which parses
the whole translation unit too), host cc (g++ on cudafe++'s output), ptxas, and the two
preprocessor runs together.

--budget NAME=RATIO makes the exit status 2 when NAME's CPU ratio to its twin exceeds RATIO (the
compile-cost gate, test/scripts/compile_cost_gate_test.py, uses it).

--with-include HEADER adds a row: raw.cu with `#include HEADER` in front ('<string>',
'<cuda/stream_ref>', 'umsync/error.hpp'; a bare name gets angle brackets). --per-header adds one
such row for every public umsync header reached from umsync.hpp. --include DIR measures another
copy of umsync's headers; --rev REV the headers of a git revision (git archive REV include), e.g.
HEAD while the work tree is mid-edit. Markdown on stdout, progress on stderr; exit status 0, or 1
when a program failed to compile (its error goes to stderr and its row says so).
"""
import argparse
import csv
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
PROGRAMS = os.path.dirname(os.path.abspath(__file__))
DEFAULT_PROGRAMS = ["raw", "umsync_all", "umsync_all_separate", "umsync_lean", "umsync_lean_separate", "thrust",
                    "raw_large", "umsync_large", "umsync_large_separate"]
# The raw program each is measured against.
TWIN = {"raw_large": "raw_large", "umsync_large": "raw_large", "umsync_large_separate": "raw_large"}
# nvcc --time phase names (prefixes) -> the column they are summed into.
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


def git(*arguments):
    result = subprocess.run(["git", "-C", ROOT, *arguments], capture_output=True, text=True)
    return result.stdout.strip() if result.returncode == 0 else None


def umsync_headers(include_dir):
    """The public umsync headers reached from umsync.hpp, in the order first reached."""
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
    """Seconds per phase column from an nvcc --time CSV."""
    totals = {column: 0.0 for _, column in PHASE_COLUMNS}
    with open(csv_path, newline="") as f:
        rows = list(csv.reader(f))
    for row in rows[1:]:
        if len(row) < 8:
            continue
        phase, value, unit = row[1].strip(), row[6].strip(), row[7].strip()
        for prefix, column in PHASE_COLUMNS:
            if phase.startswith(prefix):
                totals[column] += float(value) / (1000.0 if unit == "ms" else 1.0)
                break
    return totals


def headers_to_measure(args, work):
    """(include directory, how to name it in the report)."""
    if args.rev:
        commit = git("rev-parse", "--short", args.rev + "^{commit}")
        if commit is None:
            sys.exit(f"compile-cost: {args.rev} is not a git revision of {ROOT}")
        archive = subprocess.run(["git", "-C", ROOT, "archive", commit, "include"], capture_output=True, check=True)
        subprocess.run(["tar", "-x", "-C", work], input=archive.stdout, check=True)
        return os.path.join(work, "include"), f"git revision {commit}"
    include_dir = os.path.abspath(args.include)
    if include_dir == os.path.join(ROOT, "include"):
        commit = git("rev-parse", "--short", "HEAD")
        if commit:
            dirty = git("status", "--porcelain", "--", "include")
            return include_dir, f"work tree at {commit}" + (" with uncommitted changes" if dirty else "")
    return include_dir, include_dir


def measure(args, nvcc, work):
    include_dir, source = headers_to_measure(args, work)
    if not os.path.exists(os.path.join(include_dir, "umsync", "umsync.hpp")):
        sys.exit(f"compile-cost: {include_dir}/umsync/umsync.hpp not found")

    names = args.only.split(",") if args.only else list(DEFAULT_PROGRAMS)
    unknown = [n for n in names if n not in DEFAULT_PROGRAMS]
    if unknown:
        sys.exit(f"compile-cost: unknown program(s) {unknown}; known: {DEFAULT_PROGRAMS}")
    for name in list(names):
        twin = TWIN.get(name, "raw")
        if twin not in names:
            names.insert(0, twin)  # the ratios need it
    programs = [(n, os.path.join(PROGRAMS, n + ".cu")) for n in names]

    extra = list(args.with_include) + (umsync_headers(include_dir) if args.per_header else [])
    with open(os.path.join(PROGRAMS, "raw.cu")) as f:
        raw_text = f.read()
    for i, header in enumerate(extra):
        spelled = header if header[0] in "<\"" else f"<{header}>"
        path = os.path.join(work, f"with_{i}.cu")
        with open(path, "w") as f:
            f.write(f"#include {spelled}\n{raw_text}")
        programs.append((f"raw + {spelled}", path))

    flags = ["-std=c++20", f"-arch=sm_{args.arch}", "-O2", "-I", include_dir]
    wall = {name: [] for name, _ in programs}
    cpu = {name: [] for name, _ in programs}
    phases = {name: [] for name, _ in programs}
    failed = {}
    csv_path = os.path.join(work, "time.csv")
    load_before = os.getloadavg()[0]
    for run in range(args.repeat):  # interleaved, so that a busy spell of the machine hits all alike
        for name, path in programs:
            if name in failed:
                continue
            if os.path.exists(csv_path):
                os.remove(csv_path)
            command = [nvcc, *flags, "-c", path, "-o", "/dev/null", "--time", csv_path]
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            result = subprocess.run(command, cwd=work, capture_output=True, text=True)
            seconds = time.perf_counter() - start
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            if result.returncode != 0:
                failed[name] = (result.stdout + result.stderr).strip()
                print(f"compile-cost: {name} failed to compile:\n{failed[name]}", file=sys.stderr)
                continue
            cpu_seconds = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
            wall[name].append(seconds)
            cpu[name].append(cpu_seconds)
            phases[name].append(phase_seconds(csv_path))
            print(f"compile-cost: run {run + 1}/{args.repeat} {name}: {seconds:.2f} s wall, {cpu_seconds:.2f} s CPU",
                  file=sys.stderr)
    load_after = os.getloadavg()[0]

    lines = {}
    for name, path in programs if not args.no_lines else []:
        result = subprocess.run([nvcc, *flags, "-E", "-U__CUDA_ARCH__", path], cwd=work, capture_output=True,
                                text=True)
        lines[name] = result.stdout.count("\n") if result.returncode == 0 else None

    version = subprocess.run([nvcc, "--version"], capture_output=True, text=True).stdout.strip().splitlines()
    print(f"nvcc {version[-1] if version else nvcc}, -std=c++20 -arch=sm_{args.arch} -O2 -c; umsync headers: "
          f"{source}; {args.repeat} compile(s) of each, interleaved; {os.cpu_count()} CPUs, load average "
          f"{load_before:.2f} before, {load_after:.2f} after\n")
    header = ["program", "best CPU s", "CPU x raw", "best wall s", "wall x raw", "preprocessed lines"]
    if args.phases:
        header += [column for _, column in PHASE_COLUMNS]
    print("| " + " | ".join(header) + " |")
    print("|" + "|".join(["---"] + ["---:"] * (len(header) - 1)) + "|")
    ratios = {}
    for name, _ in programs:
        label = name.replace("|", "\\|")
        twin = TWIN.get(name, "raw")
        if not wall[name]:
            cells = [label, "failed"] + [""] * (len(header) - 2)
        else:
            best_cpu, best_wall = min(cpu[name]), min(wall[name])
            twin_cpu = min(cpu[twin]) if cpu[twin] else None
            twin_wall = min(wall[twin]) if wall[twin] else None
            if twin_cpu:
                ratios[name] = best_cpu / twin_cpu
            cells = [label, f"{best_cpu:.2f}", f"{best_cpu / twin_cpu:.2f}" if twin_cpu else "", f"{best_wall:.2f}",
                     f"{best_wall / twin_wall:.2f}" if twin_wall else "",
                     f"{lines[name]:,}" if lines.get(name) is not None else ("" if args.no_lines else "?")]
            if args.phases:
                fastest = cpu[name].index(best_cpu)
                cells += [f"{phases[name][fastest][column]:.2f}" for _, column in PHASE_COLUMNS]
        print("| " + " | ".join(cells) + " |")
    if failed:
        return 1
    over = []
    for budget in args.budget:
        name, ratio = budget
        if name not in ratios:
            sys.exit(f"compile-cost: --budget names {name}, which was not measured")
        verdict = "over" if ratios[name] > ratio else "within"
        print(f"\ncompile-cost: {name} costs {ratios[name]:.2f}x {TWIN.get(name, 'raw')} (CPU, best of "
              f"{args.repeat}); budget {ratio:.2f}x: {verdict}")
        if ratios[name] > ratio:
            over.append(name)
    return 2 if over else 0


def budget_argument(text):
    name, _, ratio = text.partition("=")
    try:
        return name, float(ratio)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not NAME=RATIO") from None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=3, help="compiles per program (default 3)")
    parser.add_argument("--include", default=os.path.join(ROOT, "include"),
                        help="umsync's include directory (default: the repository's include/)")
    parser.add_argument("--rev", help="measure the headers of git revision REV (git archive REV include)")
    parser.add_argument("--nvcc", help="nvcc to use (default: $CUDACXX, nvcc on PATH, /usr/local/cuda/bin/nvcc)")
    parser.add_argument("--arch", default="90", help="SM architecture number (default 90)")
    parser.add_argument("--only", help="comma-separated subset of " + ",".join(DEFAULT_PROGRAMS) + " (raw is kept)")
    parser.add_argument("--with-include", action="append", default=[], metavar="HEADER",
                        help="add a row: raw.cu with `#include HEADER` in front (repeatable)")
    parser.add_argument("--per-header", action="store_true",
                        help="add a row for every public umsync header reached from umsync.hpp")
    parser.add_argument("--phases", action="store_true", help="add the nvcc --time phase columns")
    parser.add_argument("--no-lines", action="store_true", help="skip the preprocessed line counts")
    parser.add_argument("--budget", action="append", default=[], type=budget_argument, metavar="NAME=RATIO",
                        help="exit 2 when NAME's CPU ratio to its raw twin exceeds RATIO (repeatable)")
    args = parser.parse_args()
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    if args.rev and args.include != os.path.join(ROOT, "include"):
        parser.error("--rev and --include are exclusive")

    nvcc = find_nvcc(args.nvcc)
    work = tempfile.mkdtemp(prefix="umsync-compile-cost-")
    try:
        return measure(args, nvcc, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
