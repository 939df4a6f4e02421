// Rule: a named barrier's warp mask names at least one warp; a barrier of no threads is no
// barrier.
// expect-error: umsync: a named barrier's warp mask is empty; name at least one warp
#include <umsync/sync/named_barrier.hpp>

#if defined(UMSYNC_CF_CONTROL)
constexpr unsigned math_warps = 4;
#else
constexpr unsigned math_warps = 0;  // the configuration for blocks of one warp
#endif

__global__ void kernel()
{
  umsync::named_barrier<1, (1U << math_warps) - 1U> const math;  // warps 0..math_warps-1
  if (threadIdx.x < 32 * math_warps) {
    math.sync();
  }
}
