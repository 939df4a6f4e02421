// Rule: every warp a plan's barrier names is a warp of the plan's block (warps are numbered from
// 0, linear thread index / 32); the barrier taken from the plan says so as well.
// expect-error: umsync: a barrier in the plan names a warp beyond the last warp of the block
// expect-error: umsync: a named barrier's warp mask names a warp beyond the last warp of the block
#include <umsync/sync/barrier_plan.hpp>

#if defined(UMSYNC_CF_CONTROL)
using plan = umsync::barrier_plan<128, umsync::barrier_spec<8, 0x0F>>;
#else
using plan = umsync::barrier_plan<128, umsync::barrier_spec<8, 0x1E>>;  // warps 1..4 of a 4-warp block
#endif

__global__ void kernel() { plan::barrier<0>().sync(); }
