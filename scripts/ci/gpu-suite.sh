#!/usr/bin/env bash
# The whole GPU suite in one command, on any machine with a CUDA GPU (the H200 for the figures):
#   configure for sm_90, build, run every test with UMSYNC_REQUIRE_GPU=1, run the GPU tests
#   and examples under compute-sanitizer (memcheck, racecheck, synccheck, initcheck), run the
#   main job's benchmarks (scripts/bench/run-benchmarks.sh), and print a summary table last.
#
#   bash scripts/ci/gpu-suite.sh            # everything: tests, bench and debug
#   bash scripts/ci/gpu-suite.sh tests      # build, tests, sanitizers, examples, SASS check: ~210 s
#   bash scripts/ci/gpu-suite.sh bench      # build, benchmarks, report: ~460 s on the H200
#   bash scripts/ci/gpu-suite.sh debug      # the UMSYNC_DEBUG build (the debug preset): every GPU
#                                           # test and example with the run-time checks on
#   bash scripts/ci/gpu-suite.sh tests debug  # parts combine; one summary
#   bash scripts/ci/gpu-suite.sh --toolkit /usr/local/cuda-13.0 tests   # another CUDA toolkit
#   bash scripts/ci/gpu-suite.sh --toolkit .deps/cuda-13.5.tar.xz tests  # the trimmed CUDA 13.5
#                                           # compiler (scripts/ci/stage-device-toolkit.sh)
#
# Options and settings:
#   --toolkit DIR (or UMSYNC_CUDA_TOOLKIT=DIR): the CUDA toolkit every build of this script uses:
#       DIR/bin/nvcc as the CUDA compiler, with the CCCL it ships, and DIR/bin first on PATH
#       (compute-sanitizer, cuobjdump); the builds go to build/gpu-<DIR's name> (and
#       build/gpu-debug-<DIR's name>), and DIR/lib64 (or DIR/lib) first on LD_LIBRARY_PATH, so
#       that the programs run with that toolkit's libcudart. Default: the nvcc CMake finds
#       (CUDACXX, PATH, /usr/local/cuda), builds in build/gpu and build/gpu-debug.
#       A .tar.xz instead of DIR (scripts/ci/stage-device-toolkit.sh's trimmed toolkit) is
#       unpacked into build/toolkit/ first. That toolkit has the compiler, cudart, CCCL and NVTX
#       only: the machine's own toolkit (UMSYNC_BASE_TOOLKIT, default /usr/local/cuda) lends it
#       cuBLAS and CUPTI (linked into the unpacked folder) and compute-sanitizer and cuobjdump
#       (its bin/ after DIR/bin on PATH).
#   UMSYNC_STEP_TIMEOUT (seconds, default 150) and UMSYNC_BENCH_TIMEOUT (default 470): every
#       step runs under a time limit, so the summary always prints.
#   OUT: the folder for the logs (default .gpu-out/).
#
# Requirements: a CUDA 13 toolkit, CMake 3.25+, a C++20 host compiler, doctest and Google
# Benchmark (README.md). A GPU machine without them or without a network: on a machine that has
# both, run `bash scripts/ci/stage-device-deps.sh` (it fills .deps/), copy the tree with its
# .deps/ folder to the GPU machine and run this script there; it takes doctest, Google Benchmark
# and RMM's wheels from .deps/.
set -uo pipefail
cd "$(dirname "$0")/../.."
out="${OUT:-$PWD/.gpu-out}"
mkdir -p "$out"
build=build/gpu
jobs=$(nproc 2>/dev/null || echo 4)
step_timeout="${UMSYNC_STEP_TIMEOUT:-150}"
bench_timeout="${UMSYNC_BENCH_TIMEOUT:-470}"
toolkit="${UMSYNC_CUDA_TOOLKIT:-}"
parts=()
while [ $# -gt 0 ]; do
  case "$1" in
    --toolkit) [ $# -ge 2 ] || { echo "gpu-suite: --toolkit needs a folder" >&2; exit 2; }; toolkit=$2; shift 2 ;;
    --toolkit=*) toolkit=${1#--toolkit=}; shift ;;
    *) parts+=("$1"); shift ;;
  esac
done
[ ${#parts[@]} -gt 0 ] || parts=(all)
for part in "${parts[@]}"; do
  case "$part" in all|tests|bench|debug) ;; *) echo "usage: $0 [--toolkit DIR] [all|tests|bench|debug]..." >&2; exit 2 ;; esac
done
# A trimmed toolkit's archive (scripts/ci/stage-device-toolkit.sh): unpacked into build/toolkit/
# (again when the archive is newer), then used as the folder.
if [[ "$toolkit" == *.tar.xz ]]; then
  [ -f "$toolkit" ] || { echo "gpu-suite: $toolkit does not exist (scripts/ci/stage-device-toolkit.sh makes it)" >&2; exit 2; }
  unpacked=build/toolkit/$(basename "$toolkit" .tar.xz)
  if [ ! -x "$unpacked/bin/nvcc" ] || [ "$toolkit" -nt "$unpacked/bin/nvcc" ]; then
    echo "gpu-suite: unpacking $toolkit into build/toolkit/"
    rm -rf "$unpacked" && mkdir -p build/toolkit && tar -xJf "$toolkit" -C build/toolkit && touch "$unpacked/bin/nvcc" ||
      { echo "gpu-suite: could not unpack $toolkit into build/toolkit/" >&2; exit 2; }
  fi
  toolkit=$unpacked
fi
# The toolkit every build uses (--toolkit or UMSYNC_CUDA_TOOLKIT): its nvcc, hence its CCCL.
toolkit_args=()
if [ -n "$toolkit" ]; then
  if [ ! -x "$toolkit/bin/nvcc" ]; then
    echo "gpu-suite: $toolkit/bin/nvcc does not exist: --toolkit (UMSYNC_CUDA_TOOLKIT) names a CUDA toolkit's folder" >&2
    exit 2
  fi
  toolkit=$(cd "$toolkit" && pwd)
  toolkit_args=(-DCMAKE_CUDA_COMPILER="$toolkit/bin/nvcc" -DCUDAToolkit_ROOT="$toolkit")
  export PATH="$toolkit/bin${PATH:+:$PATH}"
  export CUDACXX="$toolkit/bin/nvcc"
  toolkit_lib=$toolkit/lib64
  [ -d "$toolkit_lib" ] || toolkit_lib=$toolkit/lib
  export LD_LIBRARY_PATH="$toolkit_lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  build=build/gpu-$(basename "$toolkit")
  # A trimmed toolkit (its UMSYNC-TRIMMED.txt says what it holds): what the tests need beyond the
  # compiler comes from the machine's own toolkit, linked into the folder (FindCUDAToolkit looks
  # for them there): every header and header folder the folder lacks (cuBLAS's, CUPTI's and the
  # ones CUPTI's include, such as cuda_stdint.h and Openacc/), cuBLAS's and CUPTI's libraries,
  # wherever the machine's toolkit keeps them (a package install puts CUPTI in include/ and
  # lib64/, the runfile in extras/CUPTI/); and its bin/ after DIR/bin on PATH. What the folder
  # already has is kept: the compiler's own headers win.
  base=${UMSYNC_BASE_TOOLKIT:-/usr/local/cuda}
  if [ -f "$toolkit/UMSYNC-TRIMMED.txt" ]; then
    if [ -d "$base/include" ]; then
      lent=0
      for folder in "$base/include" "$base/extras/CUPTI/include"; do
        for file in "$folder"/*; do
          [ -e "$file" ] && [ ! -e "$toolkit/include/$(basename "$file")" ] &&
            ln -s "$(cd "$folder" && pwd)/$(basename "$file")" "$toolkit/include/" && lent=$((lent + 1))
        done
      done
      for folder in "$base/lib64" "$base/lib" "$base/extras/CUPTI/lib64"; do
        for file in "$folder"/libcublas*.so* "$folder"/libcupti*.so* "$folder"/libnvperf_*.so*; do
          [ -e "$file" ] && [ ! -e "$toolkit/lib/$(basename "$file")" ] &&
            ln -s "$(cd "$folder" && pwd)/$(basename "$file")" "$toolkit/lib/" && lent=$((lent + 1))
        done
      done
      echo "gpu-suite: $base lent $toolkit $lent headers and libraries" \
        "(cupti.h: $([ -e "$toolkit/include/cupti.h" ] && echo yes || echo NO)," \
        "libcupti: $(compgen -G "$toolkit/lib/libcupti.so*" >/dev/null && echo yes || echo NO))"
      export PATH="$PATH:$base/bin"
    else
      echo "gpu-suite: no toolkit at $base (UMSYNC_BASE_TOOLKIT) to lend $toolkit cuBLAS, CUPTI and compute-sanitizer" >&2
    fi
  fi
fi
want() { [[ " ${parts[*]} " == *" all "* || " ${parts[*]} " == *" $1 "* ]]; }

if [ -d .deps/usr ]; then
  export CMAKE_PREFIX_PATH="$PWD/.deps/usr${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}"
  export LD_LIBRARY_PATH="$PWD/.deps/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)

declare -a names results
record() { names+=("$1"); results+=("$2"); }
step() {  # step NAME LOGFILE COMMAND...: runs under the step time limit, logs, records the result
  local name=$1 log=$2; shift 2
  echo "=== $name"
  timeout --signal=KILL "${limit:-$step_timeout}" "$@" >>"$log" 2>&1
  local rc=$?
  if [ $rc = 0 ]; then
    record "$name" PASS
  elif [ $rc = 137 ]; then
    record "$name" "TIMEOUT after ${limit:-$step_timeout} s (see $(basename "$log"))"
  else
    record "$name" "FAIL (see $(basename "$log"))"
  fi
  tail -n 5 "$log"
}

# At most 8 log files: build.log (GPU state first), ctest.log,
# sanitizer.log, checks.log (examples, SASS), ctest-debug.log, bench.txt, bench.json, report.tar.gz.
gpu_state=$(nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,memory.used,memory.total --format=csv 2>&1)
echo "$gpu_state" | tee "$out/build.log"
toolkit_line="CUDA compiler: the one CMake finds"
[ -n "$toolkit" ] && toolkit_line="CUDA compiler: $toolkit/bin/nvcc (--toolkit)"
echo "$toolkit_line" | tee -a "$out/build.log"

# RMM (umsync::rmm, docs/rmm.md): the wheels scripts/ci/stage-device-deps.sh put in .deps/wheels,
# installed without a network; without them the RMM tests are skipped (build.log says why).
if [ -d .deps/wheels ] && ! python3 -c "import librmm, rapids_logger" >/dev/null 2>&1; then
  PIP_BREAK_SYSTEM_PACKAGES=1 python3 -m pip install -q --no-index --find-links .deps/wheels \
    "librmm-cu13==26.10.*" rapids-logger >>"$out/build.log" 2>&1 ||
    echo "gpu-suite: the RMM wheels in .deps/wheels did not install (see build.log)" | tee -a "$out/build.log"
fi

if want tests || want bench; then
  step configure "$out/build.log" cmake -S . -B "$build" "${generator[@]}" "${toolkit_args[@]}" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CUDA_ARCHITECTURES=90 -DUMSYNC_BUILD_TESTS=ON -DUMSYNC_BUILD_BENCHMARKS=ON -DUMSYNC_BUILD_EXAMPLES=ON
fi
if want tests; then
  step build "$out/build.log" cmake --build "$build" -j "$jobs"
elif want bench; then
  bench_targets=(umsync_benchmarks)  # every benchmark executable configure made (bench/CMakeLists.txt)
  step build "$out/build.log" cmake --build "$build" -j "$jobs" --target "${bench_targets[@]}"
fi

export UMSYNC_REQUIRE_GPU=1
if want tests; then
step "ctest (all but bench)" "$out/ctest.log" ctest --test-dir "$build" -LE '^bench$' -j "$jobs" --output-on-failure
grep -E "tests passed|Skipped|Failed" "$out/ctest.log" | tail -n 8

examples=("$build"/examples/umsync_example_*)
# The test executables run under all four tools, the examples under memcheck only, so the whole
# tests part takes about 210 s on the H200. CUPTI and compute-sanitizer both inject themselves
# into the process, so the telemetry tests and the health-gate example run without a tool.
test_targets=("$build/test/umsync_gpu_tests" "$build/test/umsync_gpu_debug_tests" "$build/test/umsync_separate_gpu_tests")
[ -x "$build/test/umsync_gpu_sm90a_tests" ] && test_targets+=("$build/test/umsync_gpu_sm90a_tests" "$build/test/umsync_gpu_debug_sm90a_tests")
[ -x "$build/test/umsync_nccl_tests" ] && test_targets+=("$build/test/umsync_nccl_tests")
[ -x "$build/test/rmm/umsync_rmm_tests" ] && test_targets+=("$build/test/rmm/umsync_rmm_tests")
for tool in memcheck racecheck synccheck initcheck; do
  sanitize_targets=("${test_targets[@]}")
  if [ "$tool" = memcheck ]; then
    for example in "${examples[@]}"; do
      case "$example" in *um_health_gate) ;; *) sanitize_targets+=("$example") ;; esac
    done
  fi
  for target in "${sanitize_targets[@]}"; do
    # The tests call CUDA with bad input on purpose and check the errors themselves.
    # Child processes (the pool IPC importer, the bounded-wait trap) run outside the tool:
    # memcheck reported the IPC importer's imported allocations as leaked although it frees
    # them with cudaFree (cause not established; see docs/testing.md).
    extra=(--report-api-errors no --target-processes application-only)
    [ "$tool" = memcheck ] && extra+=(--leak-check full)
    # racecheck leaves out the cluster-scope transaction barrier's remote-arrival case in which one
    # thread arrives for the block after a block barrier: it reports a hazard between the peer's
    # distributed-shared-memory writes and the owner's reads, which that barrier and the remote
    # mbarrier arrive (release.cluster) and wait (acquire.cluster) order (docs/testing.md). The
    # case in which every writer arrives itself runs under racecheck; both run under the others.
    exclude="*soak*"
    [ "$tool" = racecheck ] && exclude+=",*remote arrivals*"
    test_args=()  # one argument, although the names hold spaces
    case "$target" in *_tests) test_args=("--test-case-exclude=$exclude") ;; esac
    step "$tool $(basename "$target")" "$out/sanitizer.log" \
      compute-sanitizer --tool "$tool" "${extra[@]}" --error-exitcode 1 "$target" "${test_args[@]}"
  done
done

for example in "${examples[@]}"; do
  step "example $(basename "$example")" "$out/checks.log" "$example"
done

# Zero-cost checks on the generated code (SASS), where a module provides them.
if [ -f scripts/ci/sass-check.sh ]; then
  step "sass check" "$out/checks.log" bash scripts/ci/sass-check.sh "$build"
fi
fi  # tests

if want debug; then
# The debug preset's build (UMSYNC_DEBUG: the ordering checker, moved-from, kind, phase-guard
# and barrier-owner checks) of every GPU test and example, run without a tool.
debug_build=build/gpu-debug${toolkit:+-$(basename "$toolkit")}
step "configure (debug)" "$out/build.log" cmake -S . -B "$debug_build" "${generator[@]}" "${toolkit_args[@]}" -DCMAKE_BUILD_TYPE=Debug \
  -DUMSYNC_DEBUG=ON -DUMSYNC_BUILD_TESTS=ON -DUMSYNC_BUILD_BENCHMARKS=OFF -DUMSYNC_BUILD_EXAMPLES=ON \
  -DCMAKE_CUDA_ARCHITECTURES=90
limit=300 step "build (debug)" "$out/build.log" cmake --build "$debug_build" -j "$jobs"
step "ctest -L gpu (debug)" "$out/ctest-debug.log" ctest --test-dir "$debug_build" -L '^gpu$' -j 4 --output-on-failure
grep -E "tests passed|Failed" "$out/ctest-debug.log" | tail -n 8
for example in "$debug_build"/examples/umsync_example_*; do
  step "example (debug) $(basename "$example")" "$out/checks.log" "$example"
done
fi  # debug

if want bench; then
# The main job's run (scripts/bench/run-benchmarks.sh, the same as `cmake --workflow --preset bench`):
# one umsync_bench run per family group under one deadline, merged JSON, report with plots.
limit=$bench_timeout step benchmarks "$out/bench-run.log" bash scripts/bench/run-benchmarks.sh "$build/bench/umsync_bench" \
  "$out/bench" "$((bench_timeout - 15))"
if [ -d "$out/bench" ]; then
  mv "$out/bench/bench.txt" "$out/bench.txt" 2>/dev/null
  mv "$out/bench/umsync-bench.json" "$out/bench.json" 2>/dev/null
  [ -d "$out/bench/bench-report" ] && tar -czf "$out/report.tar.gz" -C "$out/bench" bench-report
  rm -rf "$out/bench"
fi
[ -f "$out/bench.txt" ] && rm -f "$out/bench-run.log"  # the same lines; keep it only when bench.txt is missing
fi  # bench

echo
echo "================ umsync GPU suite summary ================"
echo "$gpu_state" | sed -n 2p
echo "$toolkit_line"
[ -f "$out/ctest.log" ] && grep -E "tests passed" "$out/ctest.log" | tail -n 1
[ -f "$out/ctest-debug.log" ] && grep -E "tests passed" "$out/ctest-debug.log" | sed 's/^/debug: /' | tail -n 1
fail=0
for i in "${!names[@]}"; do
  printf '%-40s %s\n' "${names[$i]}" "${results[$i]}"
  [ "${results[$i]}" = PASS ] || fail=1
done
if [ -f "$out/bench.json" ]; then
  python3 - "$out/bench.json" <<'PY'
import json, sys
try:
    data = json.load(open(sys.argv[1]))
except ValueError:
    print("bench.json is unreadable: see bench.txt")
    sys.exit(0)
print("benchmark (median)                         time      GB/s   raw_us  umsync_us  ratio  us/op")
for b in data.get("benchmarks", []):
    if b.get("aggregate_name", "median") != "median":
        continue
    name = b['name'].replace('/manual_time', '').replace('_median', '')
    print(f"{name[:40]:40s} {b['real_time']:8.3f}{b['time_unit']:>2s} {b.get('GB/s', float('nan')):7.1f} "
          f"{b.get('raw_us', float('nan')):8.3f} {b.get('umsync_us', float('nan')):9.3f} {b.get('ratio', float('nan')):6.3f}"
          f" {b.get('us_per_op', float('nan')):6.2f}")
PY
fi
echo "overall: $([ $fail = 0 ] && echo PASS || echo FAIL)"
exit $fail
