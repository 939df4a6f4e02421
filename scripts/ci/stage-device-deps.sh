#!/usr/bin/env bash
# Gathers what the GPU suite needs beyond the CUDA toolkit into .deps/ (git ignores it), for a
# GPU machine that lacks those packages or a network: doctest and Google Benchmark from this
# machine's Debian packages (laid out as under /usr, in .deps/usr), RMM's pip wheels
# (librmm-cu13, rapids-logger) and CUTLASS's (nvidia-cutlass 4.2.0, 6.4 MB, without its Python
# dependencies), in .deps/wheels. Configure extracts CUTLASS's header tree from its wheel into the
# build folder (cmake/umsync-cutlass.cmake).
#
#   bash scripts/ci/stage-device-deps.sh     # here: needs doctest-dev, libbenchmark-dev, pip, a network
#
# Then copy the tree with its .deps/ folder to the GPU machine and run there
# `bash scripts/ci/gpu-suite.sh tests` (or bench, debug): it finds .deps/usr through
# CMAKE_PREFIX_PATH and installs the wheels with pip --no-index. Both machines need the same
# Debian release (the libraries are its binaries). A CUDA 13.5 compiler for the GPU suite:
# scripts/ci/stage-device-toolkit.sh (.deps/cuda-13.5.tar.xz, which this script leaves alone).
set -euo pipefail
cd "$(dirname "$0")/../.."
for package in doctest-dev libbenchmark-dev; do
  dpkg -s "$package" >/dev/null 2>&1 || { echo "install $package first (apt-get install $package)" >&2; exit 1; }
done
rm -rf .deps/usr .deps/wheels
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
