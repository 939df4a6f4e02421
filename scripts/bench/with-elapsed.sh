#!/usr/bin/env bash
# Runs a command and prefixes each line of its output (stdout and stderr) with the seconds since
# it started; exits with the command's status. run-benchmarks.sh runs each group through it, so
# bench.txt shows what each family costs in wall time, untimed set-up included.
#   bash scripts/bench/with-elapsed.sh build/gpu/bench/umsync_bench --benchmark_filter=family_a
set -o pipefail
start=$SECONDS
"$@" 2>&1 | while IFS= read -r line; do printf '[%4d s] %s\n' $((SECONDS - start)) "$line"; done
exit "${PIPESTATUS[0]}"
