// Rule: a warp lane mask names at least one lane; __syncwarp(0) is undefined behaviour.
// expect-error: umsync: a warp lane mask must name at least one lane; __syncwarp(0) is undefined
#include <umsync/sync/warp.hpp>

__global__ void kernel()
{
#if defined(UMSYNC_CF_CONTROL)
  umsync::syncwarp<umsync::lanes<0, 16>>();
#else
  umsync::syncwarp<0U>();
#endif
}
