#!/usr/bin/env bash
# Copies doctest and Google Benchmark from this machine's Debian packages into .deps/ (git
# ignores it), laid out as under /usr, and RMM's pip wheels (librmm-cu13, rapids-logger) into
# .deps/wheels, so a GPU machine without a package registry can build the tests and
# benchmarks (scripts/ci/gpu-suite.sh installs the wheels there): copy .deps/ over with the tree.
set -euo pipefail
cd "$(dirname "$0")/../.."
for package in doctest-dev libbenchmark-dev; do
  dpkg -s "$package" >/dev/null 2>&1 || { echo "install $package first (apt-get install $package)" >&2; exit 1; }
done
rm -rf .deps
for package in doctest-dev libbenchmark-dev libbenchmark1debian; do
  dpkg -L "$package" | while read -r path; do
    case "$path" in /usr/share/*) continue ;; esac
    if [ -f "$path" ] || [ -L "$path" ]; then
      mkdir -p ".deps$(dirname "$path")"
      cp -a "$path" ".deps$path"
    fi
  done
done
# RMM (umsync::rmm, docs/rmm.md): the wheels only, installed on the GPU machine with pip --no-index.
python3 -m pip download -q -d .deps/wheels "librmm-cu13==26.10.*" rapids-logger
du -sh .deps
