// Rule: a barrier plan's block size is a block CUDA can launch, 1 to 1024 threads; its barriers,
// which take the plan's block size, say so as well.
// expect-error: umsync: a barrier plan's block size must be in 1..1024 threads
// expect-error: umsync: a block has at most 1024 threads
#include <umsync/sync/barrier_plan.hpp>

#if defined(UMSYNC_CF_CONTROL)
using plan = umsync::barrier_plan<1024, umsync::barrier_spec<8, 0xFF>>;
#else
using plan = umsync::barrier_plan<2048, umsync::barrier_spec<8, 0xFF>>;  // 64 warps
#endif

__global__ void kernel()
{
  if (threadIdx.x < 256) {
    plan::barrier<0>().sync();
  }
}
