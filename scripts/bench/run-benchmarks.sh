#!/usr/bin/env bash
# The main job's run: every benchmark family of umsync_bench, ceilings first, one run per family
# group with its own JSON under one shared deadline, merged into one JSON, then the Markdown
# report with plots. A group stopped at the deadline loses only its own rows (Google Benchmark
# writes its JSON at exit); bench/merge.py names it in the merged JSON and the report.
#
#   bash scripts/bench/run-benchmarks.sh BENCH_EXE OUT_DIR [SECONDS]
#
# Writes OUT_DIR/umsync-bench.json, OUT_DIR/bench.txt (the tables as printed, each line with
# the seconds since its group started) and OUT_DIR/bench-report/ (report.md and PNG plots).
# SECONDS: the deadline for all groups (default 3000). UMSYNC_BENCH_REPETITIONS (default 3) and
# UMSYNC_BENCH_MIN_TIME (default 0.2) tune every family that does not fix its own;
# UMSYNC_BENCH_NO_PLOTS=1 writes the report's tables only (no matplotlib needed or installed).
# UMSYNC_BENCH_GROUPS="graphs nccl" runs only the named groups (the names below).
# UMSYNC_BENCH_EXECUTABLES="umsync_bench umsync_rmm_bench" (set by the bench tests from what
# configure made) names the executables that must be there: one missing fails the run before
# anything is measured, instead of its group reading "not in this build".
# UMSYNC_BENCH_QUICK=1 is the quick run (`cmake --workflow --preset bench-quick`): every family
# at the one size scripts/bench/quick_filter.txt picks, 2 repetitions and min time 0.05 s unless
# the two variables above say otherwise, umsync_quick=1 in the JSON context, the report marked
# as a quick run's, in about 45 s of benchmarks on the H200 (an estimate: docs/benchmarks.md),
# against about 445 s for the full run.
# Progress, as lines starting with "[bench]": the plan (groups, families, benchmarks), then
# before each group which one, how far (group k of n, families i-j of m) and the time left
# before the deadline with an estimate of the time to go (H200 reference times below, scaled
# by this run's pace); within a group, at most every UMSYNC_BENCH_PROGRESS_SECONDS (default 15)
# seconds, how many of its benchmarks are done.
# Exit status: 0 when every group ran and the report was written; 1 otherwise; without a usable
# GPU it says so once and exits 1 (what `cmake --workflow --preset bench` shows on such a machine).
# Used by the bench.all and bench.quick tests (the presets) and by scripts/ci/gpu-suite.sh.
set -uo pipefail
if [ $# -lt 2 ]; then
  sed -n '2,/^set /p' "$0" | grep '^#' >&2
  exit 2
fi
bench=$1 out=$2 budget=${3:-3000}
here=$(cd "$(dirname "$0")" && pwd)
case "${UMSYNC_BENCH_QUICK:-0}" in
  "" | 0 | no | off | false) quick=0 ;;
  *) quick=1 ;;
esac
if [ $quick = 1 ]; then
  repetitions=${UMSYNC_BENCH_REPETITIONS:-2}
  min_time=${UMSYNC_BENCH_MIN_TIME:-0.05}
  quick_list=$here/quick_filter.txt
  if [ ! -f "$quick_list" ]; then
    echo "run-benchmarks: $quick_list, the quick run's pick, is missing" >&2
    exit 2
  fi
else
  repetitions=${UMSYNC_BENCH_REPETITIONS:-3}
  min_time=${UMSYNC_BENCH_MIN_TIME:-0.2}
fi
every=${UMSYNC_BENCH_PROGRESS_SECONDS:-15}
mkdir -p "$out"
: >"$out/bench.txt"
say() { echo "[bench] $*" | tee -a "$out/bench.txt"; }

# One question before seven runs: umsync_bench itself reports a missing GPU and exits 1. Its
# answer lists every benchmark of this build.
if ! all=$("$bench" --benchmark_list_tests=true 2>"$out/no-gpu.txt"); then
  cat "$out/no-gpu.txt" >&2
  rm -f "$out/no-gpu.txt"
  echo "run-benchmarks: no benchmark ran (see above); the comparison needs a CUDA GPU" >&2
  exit 1
fi
rm -f "$out/no-gpu.txt"
all=$(grep -v '^umsync_bench on ' <<<"$all")

# NAME:FULL:QUICK:FILTER[:EXE]. Family A (unified memory, the longest) right after the ceilings, so a
# tight deadline cuts the short families instead. FULL and QUICK: the group's wall seconds on
# the H200, for the progress estimate only (full: the R2 and R3 runs of 2026-12-03, and R8 of
# 2026-12-04 for launch_chain and cluster_reduce; quick: estimated from them, R7 for those two,
# docs/benchmarks.md "The quick run"). EXE: the group runs another
# executable, found next to BENCH_EXE, instead (a group whose executable is not there is not in
# this build): umsync_rmm_bench is built apart, with RMM's CCCL (docs/rmm.md; its reference times
# are estimates). tma_pipeline's two times are estimates too (its runs' times were not kept): 12 rows of
# 20 fixed iterations of five versions (about 0.5 ms each with its events), each row's first call
# checking every version against the host on 128 MiB (about 1 s).
groups=(
  "ceilings:5:2:^ceiling_"
  "unified_memory:257:13:^family_a"
  "memory:24:4:^alloc_|^edge_|^launch_typed"
  "wrappers:7:3:^wrapper_"
  "library_calls:20:4:^library_call_"
  "barriers:37:6:^barrier_|^warp_specialized"
  "graphs:68:5:^graph_"
  "launch_chain:16:2:^launch_chain_"
  "cluster_reduce:69:2:^cluster_reduce_"
  "tma_pipeline:15:6:^tma_pipeline_"
  "nccl:46:3:^nccl_"
  "rmm:20:4:^rmm_:umsync_rmm_bench"
)
start=$SECONDS
deadline=$((start + budget))

families_of() { sed -E 's#[/<].*##' | awk 'NF && !seen[$0]++'; }  # names in, families out, in order

# The plan: each group asked for, the benchmarks of it this run measures (the quick run: the
# pick of bench/quick_filter.txt, and every size of a family the file does not name).
g_part=() g_filter=() g_names=() g_ref=() g_count=() g_families=() g_bench=()
n_groups=0 n_families=0 n_benchmarks=0 ref_total=0
unbuilt=()
for group in "${groups[@]}"; do
  IFS=: read -r part ref_full ref_quick filter exe <<<"$group"
  if [ -n "${UMSYNC_BENCH_GROUPS:-}" ] && [[ " $UMSYNC_BENCH_GROUPS " != *" $part "* ]]; then
    continue  # not asked for this run
  fi
  group_bench=$bench
  if [ -n "$exe" ]; then
    group_bench=$(dirname "$bench")/$exe
    names=""
    if [ ! -x "$group_bench" ] && [[ " ${UMSYNC_BENCH_EXECUTABLES:-} " == *" $exe "* ]]; then
      unbuilt+=("$exe")  # configured, so the build step skipped it: the verdict would lack its decision
    fi
    [ -x "$group_bench" ] && names=$("$group_bench" --benchmark_list_tests=true --benchmark_filter="$filter" 2>/dev/null |
      grep -v '^umsync_bench on ')
  else
    names=$(grep -E "$filter" <<<"$all")
  fi
  if [ -z "$names" ] && [ -z "$exe" ]; then  # umsync_bench decides (a family not in this build, e.g. F without NCCL)
    names=$("$bench" --benchmark_list_tests=true --benchmark_filter="$filter" 2>/dev/null | grep -v '^umsync_bench on ')
  fi
  ref=$ref_full
  if [ $quick = 1 ] && [ -n "$names" ]; then
    ref=$ref_quick
    filter=$(awk -v g="$part" '$1 == g { printf "%s%s", sep, $2; sep = "|" }' "$quick_list")
    while IFS= read -r family; do
      if [ -z "$filter" ] || ! grep -E "^${family}[/<]" <<<"$names" | grep -qE "$filter"; then
        say "quick: $family has no line in scripts/bench/quick_filter.txt: every size of it runs"
        filter+="${filter:+|}^${family}[/<]"
      fi
    done < <(families_of <<<"$names")
    names=$(grep -E "$filter" <<<"$names")
  fi
  count=0 families=0
  if [ -n "$names" ]; then
    count=$(grep -c . <<<"$names")
    families=$(families_of <<<"$names" | grep -c .)
    n_groups=$((n_groups + 1)) n_families=$((n_families + families)) n_benchmarks=$((n_benchmarks + count))
    ref_total=$((ref_total + ref))
  fi
  g_part+=("$part") g_filter+=("$filter") g_names+=("$names") g_ref+=("$ref") g_count+=("$count")
  g_families+=("$families") g_bench+=("$group_bench")
done

if [ ${#unbuilt[@]} -gt 0 ]; then
  echo "run-benchmarks: ${unbuilt[*]} was configured but is not built next to $bench; build the target" \
    "umsync_benchmarks (every benchmark executable configured), e.g. cmake --build --preset bench" >&2
  exit 1
fi

# Time to go, from group $1 on, $2 s into it with $3 of its $4 benchmarks done: the rest of
# the group at the pace its done benchmarks set (else its reference time scaled by this run's
# pace over the groups done, once they add up to 10 reference seconds), plus the reference
# times of the groups after it, scaled the same way. Says so when that is more than the time
# left before the deadline: the last groups will then not run.
ref_done=0 took_done=0
to_go() {
  local i=$1 into=$2 done=${3:-0} total=${4:-0} pace=100 rest=0 j current left
  if [ "$ref_done" -ge 10 ]; then
    pace=$((took_done * 100 / ref_done))
    pace=$((pace < 50 ? 50 : pace > 400 ? 400 : pace))
  fi
  if [ "$done" -gt 0 ] && [ "$total" -gt "$done" ]; then
    current=$((into * (total - done) / done))
  else
    current=$((g_ref[i] * pace / 100 - into))
  fi
  for ((j = i + 1; j < ${#g_part[@]}; j++)); do
    [ "${g_count[j]}" -gt 0 ] && rest=$((rest + g_ref[j]))
  done
  left=$((deadline - SECONDS > 0 ? deadline - SECONDS : 0))
  current=$(((current > 0 ? current : 0) + rest * pace / 100))
  if [ "$current" -gt "$left" ]; then
    echo "about $current s to go, more than the time left: the last groups will not run"
  else
    echo "about $current s to go"
  fi
}

# Copies group $1's output through; after a benchmark's rows, at most every $every s, says how
# many of the group's benchmarks are done.
row='^\[ *[0-9]+ s\] ([^ ]+)'
aggregate='^(.+)_(mean|median|stddev|cv)$'
follow() {
  local i=$1 line name finished=0 last=$SECONDS
  local -A listed=() seen=()
  while IFS= read -r name; do
    [ -n "$name" ] && listed[$name]=1
  done <<<"${g_names[i]}"
  while IFS= read -r line; do
    printf '%s\n' "$line"
    [[ $line =~ $row ]] || continue
    name=${BASH_REMATCH[1]}
    [[ $name =~ $aggregate ]] && name=${BASH_REMATCH[1]}
    if [ -z "${listed[$name]:-}" ] || [ -n "${seen[$name]:-}" ]; then
      continue
    fi
    seen[$name]=1
    finished=$((finished + 1))
    if [ $((SECONDS - last)) -ge "$every" ] && [ "$finished" -lt "${g_count[i]}" ]; then
      echo "[bench] ${g_part[i]}: $finished of ${g_count[i]} benchmarks done (group $k of $n_groups);" \
        "$((deadline - SECONDS)) s left before the time limit, $(to_go "$i" $((SECONDS - group_start)) "$finished" "${g_count[i]}")"
      last=$SECONDS
    fi
  done
}

if [ $quick = 1 ]; then
  say "quick run (one size per family, scripts/bench/quick_filter.txt): $n_groups groups, $n_families families," \
    "$n_benchmarks benchmarks, $repetitions repetitions, min time $min_time s; time limit $budget s;" \
    "about $ref_total s of benchmarks on the H200"
else
  say "full run: $n_groups groups, $n_families families, $n_benchmarks benchmarks, $repetitions repetitions," \
    "min time $min_time s (family A fixes its own); time limit $budget s; about $ref_total s of benchmarks on the H200"
fi
parts=()
status=0
k=0 families_done=0 benchmarks_done=0
for i in "${!g_part[@]}"; do
  part=${g_part[i]} filter=${g_filter[i]}
  rm -f "$out/bench-$part.json"
  if [ "${g_count[i]}" = 0 ]; then  # before the deadline: a group the build lacks is not missing
    say "$part: not in this build (e.g. family F without NCCL)"
    continue
  fi
  parts+=("$out/bench-$part.json")
  left=$((deadline - SECONDS))
  if [ "$left" -le 5 ]; then
    say "$part: not run, the time limit ($budget s) is used up"
    status=1
    continue
  fi
  k=$((k + 1))
  span=$((families_done + 1))
  [ "${g_families[i]}" -gt 1 ] && span="ies $span-$((families_done + g_families[i]))" || span="y $span"
  say "$part: group $k of $n_groups, famil$span of $n_families (${g_count[i]} benchmark$([ "${g_count[i]}" = 1 ] || echo s));" \
    "$left s left before the time limit, $(to_go "$i" 0); --benchmark_filter='$filter'"
  args=(--benchmark_filter="$filter" --benchmark_min_time="$min_time" --benchmark_repetitions="$repetitions"
    --benchmark_report_aggregates_only=true --benchmark_out="$out/bench-$part.json" --benchmark_out_format=json
    --benchmark_counters_tabular=true)
  [ $quick = 1 ] && args+=(--benchmark_context=umsync_quick=1)
  group_start=$SECONDS
  timeout --signal=KILL "$left" bash "$here/with-elapsed.sh" "${g_bench[i]}" "${args[@]}" 2>&1 | follow "$i" |
    tee -a "$out/bench.txt"
  rc=${PIPESTATUS[0]}
  took=$((SECONDS - group_start))
  if [ "$rc" = 137 ]; then
    say "$part: stopped at the time limit ($budget s)"
    status=1
    continue
  elif [ "$rc" != 0 ]; then
    say "$part: umsync_bench exited with $rc"
    status=1
  fi
  families_done=$((families_done + g_families[i])) benchmarks_done=$((benchmarks_done + g_count[i]))
  ref_done=$((ref_done + g_ref[i])) took_done=$((took_done + took))
  say "$part: done in $took s; $families_done of $n_families families, $benchmarks_done of $n_benchmarks benchmarks"
done
say "benchmarks: $k of $n_groups groups run in $((SECONDS - start)) s; merging the JSON, then the report"
python3 "$here/merge.py" "$out/umsync-bench.json" "${parts[@]}" 2>&1 | tee -a "$out/bench.txt"
[ "${PIPESTATUS[0]}" = 0 ] || status=1
rm -f "${parts[@]}"
if [ -f "$out/umsync-bench.json" ]; then
  report=()
  [ -n "${UMSYNC_BENCH_NO_PLOTS:-}" ] && report+=(--no-plots)
  # The context's umsync_quick marks the report too; --quick where bench/report.py knows it.
  if [ $quick = 1 ] && python3 "$here/report.py" --help 2>/dev/null | grep -q -- '--quick'; then
    report+=(--quick)
  fi
  python3 "$here/report.py" "$out/umsync-bench.json" --out "$out/bench-report" "${report[@]}" 2>&1 |
    tee -a "$out/bench.txt"
  [ "${PIPESTATUS[0]}" = 0 ] || status=1
  [ $quick = 1 ] && say "quick run: one size per family, $repetitions repetitions; every size:" \
    "cmake --workflow --preset bench"
  say "done in $((SECONDS - start)) s: $out/umsync-bench.json, $out/bench-report/report.md"
else
  status=1
fi
exit $status
