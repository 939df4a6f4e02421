// Rule: lanes<First, Count> names Count lanes from First, all within lanes 0..31, and at least
// one; the second argument is a count, not the last lane.
// expect-error: umsync: a lane range must lie within lanes 0..31 and hold at least one lane
#include <umsync/sync/warp.hpp>

__global__ void kernel()
{
  if (threadIdx.x % 32 >= 16) {
#if defined(UMSYNC_CF_CONTROL)
    umsync::syncwarp<umsync::lanes<16, 16>>();
#else
    umsync::syncwarp<umsync::lanes<16, 31>>();  // lanes 16..31
#endif
  }
}
