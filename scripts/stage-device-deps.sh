#!/usr/bin/env bash
# Copies doctest and Google Benchmark from this machine's Debian packages into .deps/ (git
# ignores it), laid out as under /usr, RMM's pip wheels (librmm-cu13, rapids-logger) and
# CUTLASS's (nvidia-cutlass 4.2.0, 6.4 MB, without its Python dependencies) into .deps/wheels, so
# a GPU machine without a package registry can build the tests and benchmarks (scripts/gpu-suite.sh
# installs the RMM wheels there; configure extracts CUTLASS's header tree from its wheel into the
# build folder, cmake/umsync-cutlass.cmake): copy .deps/ over with the tree.
set -euo pipefail
cd "$(dirname "$0")/.."
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
# CUTLASS (family T's cutlass::PipelineTmaAsync rows): the wheel only; its headers are all that is
# used, so its Python dependencies (numpy, scipy, networkx, cuda-python...) are left out.
python3 -m pip download -q --no-deps -d .deps/wheels "nvidia-cutlass==4.2.0"
du -sh .deps
