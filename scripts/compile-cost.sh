#!/usr/bin/env bash
# Compile cost of umsync: the best nvcc CPU time of a small program written in raw CUDA, with
# <umsync/umsync.hpp>, with the common path's lean includes, and with Thrust, and of a larger
# program raw and with umsync, compiled side by side in one run; the ratio of each to its raw
# twin and the preprocessed size. Markdown table on stdout.
#   bash scripts/compile-cost.sh [--repeat N] [--include DIR | --rev REV] [--phases] [--per-header]
#                                [--with-include HEADER]... [--only NAME,...] [--nvcc PATH]
#                                [--budget NAME=RATIO]... [--no-lines]
# See scripts/compile_cost.py for the options and docs/compile-cost.md for the results.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
exec python3 "$root/scripts/compile_cost.py" "$@"
