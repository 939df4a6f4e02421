#!/usr/bin/env bash
# Compile cost of umsync: median nvcc wall time of a small program written in raw CUDA, with
# <umsync/umsync.hpp>, with the per-concept headers only, and with Thrust, compiled side by side
# in one run; the ratio to raw and the preprocessed size of each. Markdown table on stdout.
#   bash scripts/compile-cost.sh [--repeat N] [--include DIR] [--phases] [--per-header]
#                                [--with-include HEADER]... [--only NAME,...] [--nvcc PATH]
# See scripts/compile_cost.py for the options and docs/compile-cost.md for the results.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
exec python3 "$root/scripts/compile_cost.py" "$@"
