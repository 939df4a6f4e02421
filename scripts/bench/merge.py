#!/usr/bin/env python3
"""Merges the Google Benchmark JSON files of several runs of umsync_bench (one per family group,
as scripts/ci/gpu-suite.sh runs them) into one file for bench/report.py and bench/compare.py.

  python3 scripts/bench/merge.py OUT.json PART.json [PART.json ...]

A part that is missing or cut short (its run was stopped at the time limit, so Google Benchmark
never closed the JSON) is left out and named in the merged file's context
("umsync_parts_missing") and on stderr; the rest is kept. The context is the first complete
part's. Exit status: 0 when every part merged, 1 when some were left out, 2 when none merged."""
import json
import os
import sys


def merge(parts):
    context = None
    benchmarks = []
    missing = []
    for path in parts:
        try:
            with open(path) as f:
                data = json.load(f)
        except (OSError, ValueError):
            missing.append(os.path.basename(path))
            continue
        if context is None:
            context = data.get("context", {})
        benchmarks.extend(data.get("benchmarks", []))
    if context is None:
        return None, missing
    context = dict(context, umsync_parts_missing=missing)
    return {"context": context, "benchmarks": benchmarks}, missing


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    merged, missing = merge(argv[2:])
    for name in missing:
        print(f"bench_merge: {name} is missing or incomplete (stopped at the time limit?): left out", file=sys.stderr)
    if merged is None:
        print("bench_merge: no complete part to merge", file=sys.stderr)
        return 2
    with open(argv[1], "w") as f:
        json.dump(merged, f, indent=1)
    print(f"bench_merge: {len(merged['benchmarks'])} rows from {len(argv) - 2 - len(missing)} of {len(argv) - 2} parts "
          f"into {argv[1]}")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
