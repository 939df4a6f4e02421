// Pairs of kernels for scripts/ci/sass-check.sh: raw_<name> written with CUDA's PDL intrinsics and
// plain pointers, umsync_<name> with pdl.hpp's pending<T> / independent<T> and the typed wait and
// trigger. Each pair must give identical SASS: the types are only compile-time. Not part of any
// test executable.
#include <umsync/pdl.hpp>

#include <cstddef>

// A dependent step: scratch written before the wait, the shared input read after it.
extern "C" __global__ void raw_pdl_step(float const* in, float* out, float* scratch, std::size_t n)
{
  std::size_t const i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) scratch[i] = 0.0F;
  cudaTriggerProgrammaticLaunchCompletion();
  cudaGridDependencySynchronize();
  if (i < n) out[i] = in[i] * 0.5F + 1.0F;
}

extern "C" __global__ void umsync_pdl_step(umsync::pending<float const> in, umsync::pending<float> out,
                                           umsync::independent<float> scratch, std::size_t n)
{
  std::size_t const i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) scratch[i] = 0.0F;
  umsync::trigger_dependent_launch();
  umsync::prerequisites_complete const done = umsync::wait_for_prerequisite_grids();
  if (i < n) out.after(done)[i] = in.after(done)[i] * 0.5F + 1.0F;
}
