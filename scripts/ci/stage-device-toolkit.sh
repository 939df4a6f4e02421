#!/usr/bin/env bash
# Stages a trimmed CUDA 13.5 compiler into .deps/cuda-13.5.tar.xz (git ignores .deps/), for a GPU
# machine that has only its own CUDA 13.0 toolkit and no network, so that the GPU suite can be
# built there by CUDA 13.5's nvcc (docs/compatibility.md). From the pip wheels of matrix.sh's
# cuda13.5 entry (nvidia-cuda-nvcc 13.5.37, nvidia-nvvm, nvidia-cuda-crt, nvidia-cuda-runtime,
# nvidia-cuda-cccl 13.3.5.0.6) and nvidia-nvtx 13.5.25 (the nvtx3 headers), it keeps what a build
# for sm_90 uses: nvcc and nvcc.profile, cudafe++, cicc and libdevice.10.bc, ptxas, fatbinary,
# nvlink, the crt link stubs, include/ (crt, CCCL, nvtx3), libcudart (shared and static) and
# libcudadevrt; not libnvvm (nvcc does not use it) nor anything else of the wheels. It then
# compiles and links a small program with that folder alone, and packs it with xz (the folder,
# 270 MiB, is several times larger than the 64 MiB a copy to the GPU machine may carry).
#
#   bash scripts/ci/stage-device-toolkit.sh     # here: needs pip, a network, g++, xz
#
# Run it after scripts/ci/stage-device-deps.sh (which leaves .deps/cuda-13.5.tar.xz alone), copy the
# tree with its .deps/ folder to the GPU machine and run there
# `bash scripts/ci/gpu-suite.sh --toolkit .deps/cuda-13.5.tar.xz tests`: it unpacks the archive into
# build/toolkit/ and lends the folder the machine's own toolkit's cuBLAS, CUPTI and compute-sanitizer.
# The binaries are x86-64 Linux builds (glibc); the GPU machine's driver must be r580 or newer.
set -euo pipefail
cd "$(dirname "$0")/../.."

nvcc_version=13.5.37   # as scripts/ci/matrix.sh
cccl_wheel=13.3.5.0.6
nvtx_wheel=13.5.25
name=cuda-13.5
archive=.deps/$name.tar.xz

for tool in g++ xz tar; do
  command -v "$tool" >/dev/null || { echo "stage-device-toolkit: $tool is needed" >&2; exit 1; }
done
scratch=$(mktemp -d "${TMPDIR:-/tmp}/umsync-toolkit.XXXXXX")
trap 'rm -rf "$scratch"' EXIT

echo "=== pip install of the CUDA $nvcc_version wheels into $scratch"
if ! python3 -m pip install -q --disable-pip-version-check --no-warn-script-location --target "$scratch/wheels" \
  "nvidia-cuda-nvcc==$nvcc_version" "nvidia-nvvm==$nvcc_version" "nvidia-cuda-crt==$nvcc_version" \
  "nvidia-cuda-runtime==$nvcc_version" "nvidia-cuda-cccl==$cccl_wheel" "nvidia-nvtx==$nvtx_wheel" >"$scratch/pip.log" 2>&1; then
  grep -v "Running pip as the 'root' user" "$scratch/pip.log" >&2
  echo "stage-device-toolkit: pip could not install the wheels" >&2
  exit 1
fi
src=$scratch/wheels/nvidia/cu13
[ -x "$src/bin/nvcc" ] || { echo "stage-device-toolkit: no nvidia/cu13/bin/nvcc in the wheels" >&2; exit 1; }
echo "wheels as installed: $(du -sh "$scratch/wheels" | cut -f1)"

echo "=== the trimmed folder"
tk=$scratch/$name
mkdir -p "$tk/bin/crt" "$tk/nvvm/bin" "$tk/nvvm/libdevice" "$tk/lib"
cp -a "$src"/bin/{nvcc,nvcc.profile,cudafe++,ptxas,nvlink,fatbinary,__nvcc_device_query} "$tk/bin/"
cp -a "$src"/bin/crt/{link.stub,prelink.stub} "$tk/bin/crt/"
cp -a "$src/nvvm/bin/cicc" "$tk/nvvm/bin/"
cp -a "$src/nvvm/libdevice/libdevice.10.bc" "$tk/nvvm/libdevice/"
cp -a "$src"/lib/{libcudart.so.13,libcudart_static.a,libcudadevrt.a} "$tk/lib/"
ln -s libcudart.so.13 "$tk/lib/libcudart.so"  # the link a toolkit's linker and FindCUDAToolkit use
cp -a "$src/include" "$tk/include"
rm -f "$tk/include/nvvm.h"  # libnvvm's header; libnvvm is left out
[ -f "$tk/include/nvtx3/nvToolsExt.h" ] || { echo "stage-device-toolkit: the nvtx wheel has no include/nvtx3" >&2; exit 1; }
got=$("$tk/bin/nvcc" --version | sed -n 's/.*release \([0-9.]*\), V\([0-9.]*\).*/\2/p')
[ "$got" = "$nvcc_version" ] || { echo "stage-device-toolkit: nvcc reports '$got', not $nvcc_version" >&2; exit 1; }
cat >"$tk/UMSYNC-TRIMMED.txt" <<EOF
CUDA $nvcc_version's compiler, trimmed by umsync's scripts/ci/stage-device-toolkit.sh from the pip
wheels nvidia-cuda-nvcc, nvidia-nvvm, nvidia-cuda-crt, nvidia-cuda-runtime $nvcc_version,
nvidia-cuda-cccl $cccl_wheel and nvidia-nvtx $nvtx_wheel: nvcc, cudafe++, cicc, ptxas, fatbinary,
nvlink, headers (crt, CCCL, nvtx3), libcudart, libcudadevrt. No cuBLAS, CUPTI, NCCL,
compute-sanitizer or cuobjdump: scripts/ci/gpu-suite.sh takes them from the machine's toolkit.
EOF

# The check: a kernel with CCCL's span and memory_resource, built for sm_90 and linked, with no
# other CUDA toolkit on PATH (nvcc looks for the tools it lacks there).
echo "=== check: compile and link for sm_90 with the trimmed folder alone"
cat >"$scratch/check.cu" <<'EOF'
#include <cuda/memory_resource>
#include <cuda/std/span>
#include <cstdio>
__global__ void fill(cuda::std::span<int> s) { s[threadIdx.x] = static_cast<int>(threadIdx.x); }
int main() {
  int* p = nullptr;
  if (cudaMalloc(&p, 32 * sizeof(int)) != cudaSuccess) return 0;
  fill<<<1, 32>>>(cuda::std::span<int>(p, 32));
  std::printf("%s\n", cudaGetErrorString(cudaDeviceSynchronize()));
  cudaFree(p);
}
EOF
env -i PATH=/usr/bin:/bin HOME="$HOME" TMPDIR="$scratch" "$tk/bin/nvcc" -std=c++20 -arch=sm_90 \
  "$scratch/check.cu" -o "$scratch/check" ||
  { echo "stage-device-toolkit: the trimmed folder did not compile and link the check" >&2; exit 1; }
echo "check: compiled and linked"

echo "=== $archive (xz, about 6 minutes)"
mkdir -p .deps
rm -f "$archive"
# The x86 filter and one 384 MiB block: ptxas, nvlink and nvcc share much of their code, which a
# smaller dictionary or several blocks (-T2) would compress apart (xz -9e -T2: 56.5 MiB, this: 45.6 MiB).
tar -cf - -C "$scratch" "$name" | xz --x86 --lzma2=preset=9e,dict=384MiB -T1 >"$archive.part"
mv "$archive.part" "$archive"
echo "folder $(du -sh --apparent-size "$tk" | cut -f1) as files, archive $(du -h --apparent-size "$archive" | cut -f1)" \
  "($(stat -c %s "$archive") bytes); .deps/ in all: $(du -sh .deps | cut -f1)"
total=$(du -sb .deps | cut -f1)
[ "$total" -le $((64 * 1024 * 1024)) ] ||
  echo "stage-device-toolkit: .deps/ is over 64 MiB ($total bytes): too large for the copy to the GPU machine" >&2
