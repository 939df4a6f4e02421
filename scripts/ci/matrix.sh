#!/usr/bin/env bash
# The version matrix's extra entries (docs/compatibility.md): for each, install the pip wheels it
# needs under build/ci/<entry>/, check their versions, then run the entry's workflow preset: the
# host tests and every compile-fail test (with its control), nothing that needs a GPU. The main
# entry (CUDA 13.0, its CCCL 3.0.1, g++ 12) is the README's `cmake --workflow --preset test`,
# which .ci/run runs after this script.
#
#   scripts/ci/matrix.sh [cuda13.5] [cccl3.5]     (no argument: both)
#
#   cuda13.5  the newest CUDA 13.x compiler from pip (nvidia-cuda-nvcc 13.5.37 with nvidia-nvvm,
#             nvidia-cuda-crt, nvidia-cuda-runtime) and the CCCL wheel (nvidia-cuda-cccl,
#             CCCL 3.5.0), in one folder, so that the wheel's nvcc.profile puts that CCCL on the
#             path as a toolkit's does; host compiler g++.
#   cccl3.5   the CUDA 13.0 toolkit with CCCL 3.5.0 (the same wheel) ahead of the toolkit's
#             CCCL 3.0.1; host compiler clang++-19 (Debian's clang-19 and libclang-rt-19-dev, which
#             .ci/run installs), as nvcc's (-ccbin) and as the C++ compiler of the host tests. UMSYNC_CI_CLANG
#             names another clang (e.g. clang++-15); UMSYNC_CI_CLANG= (empty) runs the entry on
#             g++. Not clang 15, the oldest that builds umsync: its std::source_location::current()
#             as a default argument gives the default argument's line, not the caller's, so every
#             error would name a umsync header instead of the user's line, and the host tests
#             that check the line fail. Not clang 14: no source_location with libstdc++ 12
#             (docs/compatibility.md).
#
# An entry whose wheels or compiler cannot be had reports "skipped" with the reason and does not
# fail the run; a configure, build or test failure does. The summary gives each entry's time.
set -uo pipefail
cd "$(dirname "$0")/../.."

entries=("$@")
[ ${#entries[@]} -gt 0 ] || entries=(cuda13.5 cccl3.5)

nvcc_version=13.5.37
cccl_wheel=13.3.5.0.6
cccl_version=3005000
toolkit_nvcc=${UMSYNC_CI_TOOLKIT_NVCC:-/usr/local/cuda/bin/nvcc}
host_clang=${UMSYNC_CI_CLANG-clang++-19}

summary=()
failed=0

# install <folder> <requirement...>: pip's wheels into <folder> (pip install --target: no
# virtual environment, nothing of the system Python changed). Prints pip's error on failure.
install() {
  local folder=$1
  shift
  if python3 - "$folder" "$@" <<'PY' >/dev/null 2>&1; then
import sys, importlib.metadata as md
folder, wanted = sys.argv[1], sys.argv[2:]
have = {d.metadata["Name"].lower(): d.version for d in md.distributions(path=[folder])}
sys.exit(0 if all(have.get(w.split("==")[0]) == w.split("==")[1] for w in wanted) else 1)
PY
    return 0  # already there, at the versions asked for
  fi
  rm -rf "$folder"
  python3 -m pip install -q --disable-pip-version-check --no-warn-script-location --target "$folder" "$@" 2>&1 |
    grep -v "Running pip as the 'root' user"
  [ "${PIPESTATUS[0]}" -eq 0 ]
}

# cccl_version_of <include folder>: CCCL_VERSION from its cuda/std/__cccl/version.h.
cccl_version_of() {
  sed -n 's/^#define CCCL_VERSION \([0-9]*\).*/\1/p' "$1/cuda/std/__cccl/version.h" 2>/dev/null
}

# prepare_<entry>: installs and checks; prints the reason and returns 1 when the entry cannot run.
prepare_cuda13.5() {
  local prefix=build/ci/cuda13.5
  install "$prefix" "nvidia-cuda-nvcc==$nvcc_version" "nvidia-nvvm==$nvcc_version" \
    "nvidia-cuda-crt==$nvcc_version" "nvidia-cuda-runtime==$nvcc_version" "nvidia-cuda-cccl==$cccl_wheel" ||
    { echo "pip could not install nvidia-cuda-nvcc $nvcc_version and nvidia-cuda-cccl $cccl_wheel"; return 1; }
  local cu=$prefix/nvidia/cu13
  local got
  got=$("$cu/bin/nvcc" --version 2>&1 | sed -n 's/.*release \([0-9.]*\), V\([0-9.]*\).*/\2/p')
  [ "$got" = "$nvcc_version" ] || { echo "the wheel's nvcc reports '$got', not $nvcc_version"; return 1; }
  got=$(cccl_version_of "$cu/include/cccl")
  [ "$got" = "$cccl_version" ] || { echo "the CCCL wheel holds CCCL_VERSION '$got', not $cccl_version"; return 1; }
  # The runtime wheel has libcudart.so.13 but not the libcudart.so link a toolkit's linker uses.
  [ -e "$cu/lib/libcudart.so" ] || ln -s libcudart.so.13 "$cu/lib/libcudart.so"
}

prepare_cccl3.5() {
  local prefix=build/ci/cccl3.5
  install "$prefix" "nvidia-cuda-cccl==$cccl_wheel" ||
    { echo "pip could not install nvidia-cuda-cccl $cccl_wheel"; return 1; }
  local cccl
  cccl=$(cd "$prefix/nvidia/cu13/include/cccl" && pwd)
  local got
  got=$(cccl_version_of "$cccl")
  [ "$got" = "$cccl_version" ] || { echo "the CCCL wheel holds CCCL_VERSION '$got', not $cccl_version"; return 1; }
  [ -x "$toolkit_nvcc" ] || { echo "no CUDA 13.0 nvcc at $toolkit_nvcc"; return 1; }
  local ccbin="" cxx=""
  if [ -n "$host_clang" ]; then
    cxx=$(command -v "$host_clang") ||
      { echo "no $host_clang for the host compiler (apt-get install clang-19 libclang-rt-19-dev; UMSYNC_CI_CLANG= runs on g++)"; return 1; }
    ccbin="-ccbin $cxx"
  else
    cxx=$(command -v g++) || { echo "no g++ for the host compiler"; return 1; }
  fi
  # A build folder configured with another host compiler is configured afresh (CMake keeps the
  # compilers it found in its cache).
  local stamp=build/ci-cccl3.5/umsync-host-compiler
  if [ -e "$stamp" ] && [ "$(cat "$stamp")" != "$cxx" ]; then
    rm -rf build/ci-cccl3.5
  fi
  mkdir -p build/ci-cccl3.5
  echo "$cxx" >"$stamp"
  # The entry's compilers: the toolkit's nvcc with that CCCL first (-I is searched before the
  # -isystem folder nvcc gives its own CCCL) and the host compiler as its -ccbin, and the same
  # host compiler for the C++ sources. Wrappers, so that the compile-fail tests, which call the
  # compiler with their own flags, get the same.
  mkdir -p "$prefix/bin"
  cat >"$prefix/bin/nvcc" <<WRAPPER
#!/bin/sh
# Written by scripts/ci/matrix.sh: CUDA 13.0's nvcc, CCCL $got ahead of the toolkit's${host_clang:+, $host_clang}.
exec "$toolkit_nvcc" $ccbin -I"$cccl" "\$@"
WRAPPER
  cat >"$prefix/bin/c++" <<WRAPPER
#!/bin/sh
# Written by scripts/ci/matrix.sh: the cccl3.5 entry's C++ compiler.
exec "$cxx" "\$@"
WRAPPER
  chmod +x "$prefix/bin/c++"
  chmod +x "$prefix/bin/nvcc"
  echo "host compiler $("$cxx" --version | head -n 1)"
}

for entry in "${entries[@]}"; do
  if ! declare -F "prepare_$entry" >/dev/null; then
    echo "matrix: unknown entry '$entry' (cuda13.5, cccl3.5)" >&2
    exit 2
  fi
  echo "=== matrix entry $entry"
  start=$SECONDS
  if ! reason=$("prepare_$entry"); then
    echo "=== matrix entry $entry: skipped: $reason"
    summary+=("$entry: skipped ($reason)")
    continue
  fi
  [ -z "$reason" ] || echo "$reason"
  if cmake --workflow --preset "ci-$entry"; then
    summary+=("$entry: passed in $((SECONDS - start)) s${reason:+ ($reason)}")
  else
    summary+=("$entry: FAILED after $((SECONDS - start)) s${reason:+ ($reason)}")
    failed=1
  fi
done

echo "=== matrix summary"
printf '  %s\n' "${summary[@]}"
exit $failed
