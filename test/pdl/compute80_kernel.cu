// A dependent kernel built as compute_80 PTX only (test/CMakeLists.txt): on an sm_90 device the
// driver JIT-compiles it, and its wait_for_prerequisite_grids() is empty, as in NVIDIA/cccl #9134.
// test/pdl_test.cu checks that launch_dependent refuses it.
#include "compute80_kernel.cuh"

namespace umsync_test {
namespace {
__global__ void compute80_copy(umsync::pending<std::uint32_t const> in, umsync::pending<std::uint32_t> out,
                               std::size_t count)
{
  umsync::prerequisites_complete const done = umsync::wait_for_prerequisite_grids();
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += std::size_t(gridDim.x) * blockDim.x) {
    out.after(done)[i] = in.after(done)[i];
  }
}
}  // namespace

compute80_copy_fn compute80_copy_kernel() { return compute80_copy; }
}  // namespace umsync_test
