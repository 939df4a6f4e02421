#!/usr/bin/env bash
# scripts/ci/torch-suite.sh: umsync inside PyTorch, in one command (docs/torch.md).
#
#   bash scripts/ci/torch-suite.sh
#
# On a machine with PyTorch (CUDA build), nvcc and a GPU: builds the example extension
# (torch/umsync_torch_ext.cu) in its release and debug (UMSYNC_DEBUG) variants at once, under
# build/torch/, then runs torch/test_umsync_torch.py (pytest -q when pytest is installed, else
# its built-in runner) and prints a summary last: PASS/FAIL per step, timings, the hazard and
# timing lines of the tests. Logs go to $OUT when it is set (else build/torch/logs).
# Without PyTorch, without CUDA in it, or without a GPU it prints "skipped: <reason>" and exits 0.
# Exit status: 0 when every step passed or the suite was skipped, 1 otherwise.
set -u

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT" || exit 1
PYTHON=${PYTHON:-python3}
LOGS=${OUT:-$ROOT/build/torch/logs}
mkdir -p "$LOGS" build/torch
BUILD_LIMIT=${UMSYNC_TORCH_BUILD_LIMIT:-330}  # seconds for both builds (about 75 s each on the H200)
TEST_LIMIT=${UMSYNC_TORCH_TEST_LIMIT:-120}
SUITE_START=$(date +%s)

why=$("$PYTHON" - <<'EOF' 2>&1
try:
    import torch
    if getattr(torch, '__file__', None) is None:  # the repository's torch/ folder, not PyTorch
        raise ImportError('no PyTorch package is installed')
except Exception as error:
    print(f'PyTorch is not importable ({type(error).__name__}: {error})')
    raise SystemExit(0)
if torch.version.cuda is None:
    print(f'PyTorch {torch.__version__} is a build without CUDA')
elif not torch.cuda.is_available():
    print(f'PyTorch {torch.__version__} (CUDA {torch.version.cuda}) sees no GPU')
EOF
)
if [ -n "$why" ]; then
  echo "skipped: $why"
  exit 0
fi
if ! command -v nvcc > /dev/null 2>&1 && [ ! -x "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc" ]; then
  echo "skipped: no nvcc (PATH, or \$CUDA_HOME/bin) to build the extension with"
  exit 0
fi

"$PYTHON" -c 'import torch; print("torch", torch.__version__, "CUDA", torch.version.cuda, "GPU", torch.cuda.get_device_name(0), "x", torch.cuda.device_count())' \
  | tee "$LOGS/torch-environment.txt"
nvcc --version 2>/dev/null | tail -1 | tee -a "$LOGS/torch-environment.txt"

# Both variants build at once, each one nvcc process; ninja inside each gets the cores too.
export MAX_JOBS=${MAX_JOBS:-$(nproc)}
declare -A build_rc build_s
build_start=$(date +%s)
for variant in release debug; do
  (
    start=$(date +%s)
    timeout "$BUILD_LIMIT" "$PYTHON" torch/umsync_torch_build.py "$variant" > "$LOGS/torch-build-$variant.log" 2>&1
    rc=$?
    echo "$rc $(( $(date +%s) - start ))" > "build/torch/.build-$variant.status"
  ) &
done
wait
for variant in release debug; do
  read -r rc secs < "build/torch/.build-$variant.status" || { rc=1; secs=0; }
  build_rc[$variant]=$rc
  build_s[$variant]=$secs
  if [ "$rc" != 0 ]; then
    echo "--- build $variant failed (rc $rc); the end of its log:"
    tail -40 "$LOGS/torch-build-$variant.log"
  fi
done
build_total=$(( $(date +%s) - build_start ))

report="$LOGS/torch-report.txt"
: > "$report"
test_rc=1
test_s=0
if [ "${build_rc[release]}" = 0 ] && [ "${build_rc[debug]}" = 0 ]; then
  start=$(date +%s)
  if "$PYTHON" -c 'import pytest' > /dev/null 2>&1; then
    runner="pytest -q"
    UMSYNC_TORCH_REPORT="$report" timeout "$TEST_LIMIT" "$PYTHON" -m pytest -q -p no:cacheprovider -rs \
      torch/test_umsync_torch.py > "$LOGS/torch-tests.log" 2>&1
  else
    runner="built-in runner (no pytest here)"
    UMSYNC_TORCH_REPORT="$report" timeout "$TEST_LIMIT" "$PYTHON" torch/test_umsync_torch.py \
      > "$LOGS/torch-tests.log" 2>&1
  fi
  test_rc=$?
  test_s=$(( $(date +%s) - start ))
  echo "--- tests ($runner), the end of the log:"
  tail -40 "$LOGS/torch-tests.log"
fi

status() { [ "$1" = 0 ] && echo PASS || echo "FAIL (rc $1)"; }
echo
echo "=== umsync torch suite: summary (logs: $LOGS)"
echo "build release: $(status "${build_rc[release]}") in ${build_s[release]} s"
echo "build debug:   $(status "${build_rc[debug]}") in ${build_s[debug]} s (both at once: ${build_total} s)"
if [ "${build_rc[release]}" = 0 ] && [ "${build_rc[debug]}" = 0 ]; then
  echo "tests:         $(status "$test_rc") in ${test_s} s; $(grep -E '[0-9]+ (passed|failed)' "$LOGS/torch-tests.log" | tail -1)"
  [ -s "$report" ] && sed 's/^/  /' "$report"
else
  echo "tests:         not run (a build failed)"
fi
echo "total: $(( $(date +%s) - SUITE_START )) s"
if [ "${build_rc[release]}" = 0 ] && [ "${build_rc[debug]}" = 0 ] && [ "$test_rc" = 0 ]; then
  echo "PASS"
  exit 0
fi
echo "FAIL"
exit 1
