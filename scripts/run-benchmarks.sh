#!/usr/bin/env bash
# The main job's run: every benchmark family of umsync_bench, ceilings first, one run per family
# group with its own JSON under one shared deadline, merged into one JSON, then the Markdown
# report with plots. A group stopped at the deadline loses only its own rows (Google Benchmark
# writes its JSON at exit); bench_merge.py names it in the merged JSON and the report.
#
#   bash scripts/run-benchmarks.sh BENCH_EXE OUT_DIR [SECONDS]
#
# Writes OUT_DIR/umsync-bench.json, OUT_DIR/bench.txt (the tables as printed, each line with
# the seconds since its group started) and OUT_DIR/bench-report/ (report.md and PNG plots).
# SECONDS: the deadline for all groups (default 3000). UMSYNC_BENCH_REPETITIONS (default 3) and
# UMSYNC_BENCH_MIN_TIME (default 0.2) tune every family that does not fix its own;
# UMSYNC_BENCH_NO_PLOTS=1 writes the report's tables only (no matplotlib needed or installed).
# UMSYNC_BENCH_GROUPS="graphs nccl" runs only the named groups (the names below).
# Exit status: 0 when every group ran and the report was written; 1 otherwise; without a usable
# GPU it says so once and exits 1 (what `cmake --workflow --preset bench` shows on such a machine).
# Used by the bench.all test (the preset) and by scripts/gpu-suite.sh.
set -uo pipefail
if [ $# -lt 2 ]; then
  sed -n '2,/^set /p' "$0" | grep '^#' >&2
  exit 2
fi
bench=$1 out=$2 budget=${3:-3000}
here=$(cd "$(dirname "$0")" && pwd)
repetitions=${UMSYNC_BENCH_REPETITIONS:-3}
min_time=${UMSYNC_BENCH_MIN_TIME:-0.2}
mkdir -p "$out"
: >"$out/bench.txt"

# One question before seven runs: umsync_bench itself reports a missing GPU and exits 1.
if ! "$bench" --benchmark_list_tests=true >/dev/null 2>"$out/no-gpu.txt"; then
  cat "$out/no-gpu.txt" >&2
  rm -f "$out/no-gpu.txt"
  echo "run-benchmarks: no benchmark ran (see above); the comparison needs a CUDA GPU" >&2
  exit 1
fi
rm -f "$out/no-gpu.txt"

# Family A (unified memory, the longest) right after the ceilings, so a tight deadline cuts
# the short families instead. On the H200 (2026-12-03): 4, 259, 23, 7, 36, 69, 45 s.
groups=(
  "ceilings:^ceiling_"
  "unified_memory:^family_a"
  "memory:^alloc_|^edge_|^launch_typed"
  "wrappers:^wrapper_"
  "barriers:^barrier_|^warp_specialized"
  "graphs:^graph_"
  "nccl:^nccl_"
)
deadline=$(($(date +%s) + budget))
parts=()
status=0
for group in "${groups[@]}"; do
  part=${group%%:*} filter=${group#*:}
  if [ -n "${UMSYNC_BENCH_GROUPS:-}" ] && [[ " $UMSYNC_BENCH_GROUPS " != *" $part "* ]]; then
    continue  # not asked for this run
  fi
  parts+=("$out/bench-$part.json")
  rm -f "$out/bench-$part.json"
  left=$((deadline - $(date +%s)))
  if [ "$left" -le 5 ]; then
    echo "[bench] $part: not run, the time limit ($budget s) is used up" | tee -a "$out/bench.txt"
    status=1
    continue
  fi
  if ! "$bench" --benchmark_list_tests=true --benchmark_filter="$filter" 2>/dev/null | grep -v '^umsync_bench on ' | grep -q .; then
    echo "[bench] $part: not in this build (e.g. family F without NCCL)" | tee -a "$out/bench.txt"
    parts=("${parts[@]:0:${#parts[@]}-1}")
    continue
  fi
  echo "[bench] $part ($left s left): --benchmark_filter='$filter'" | tee -a "$out/bench.txt"
  timeout --signal=KILL "$left" bash "$here/with-elapsed.sh" "$bench" \
    --benchmark_filter="$filter" --benchmark_min_time="$min_time" \
    --benchmark_repetitions="$repetitions" --benchmark_report_aggregates_only=true \
    --benchmark_out="$out/bench-$part.json" --benchmark_out_format=json --benchmark_counters_tabular=true \
    2>&1 | tee -a "$out/bench.txt"
  rc=${PIPESTATUS[0]}
  if [ "$rc" = 137 ]; then
    echo "[bench] $part: stopped at the time limit ($budget s)" | tee -a "$out/bench.txt"
    status=1
  elif [ "$rc" != 0 ]; then
    echo "[bench] $part: umsync_bench exited with $rc" | tee -a "$out/bench.txt"
    status=1
  fi
done
python3 "$here/bench_merge.py" "$out/umsync-bench.json" "${parts[@]}" 2>&1 | tee -a "$out/bench.txt"
[ "${PIPESTATUS[0]}" = 0 ] || status=1
rm -f "${parts[@]}"
if [ -f "$out/umsync-bench.json" ]; then
  plots=()
  [ -n "${UMSYNC_BENCH_NO_PLOTS:-}" ] && plots=(--no-plots)
  python3 "$here/bench_report.py" "$out/umsync-bench.json" --out "$out/bench-report" "${plots[@]}" 2>&1 |
    tee -a "$out/bench.txt"
  [ "${PIPESTATUS[0]}" = 0 ] || status=1
else
  status=1
fi
exit $status
