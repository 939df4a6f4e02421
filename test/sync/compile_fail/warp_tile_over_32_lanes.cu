// Rule: a warp tile is part of one warp, 1 to 32 lanes; a group of warps syncs with a named
// barrier.
// expect-error: umsync: a warp tile has 1..32 lanes
#include <umsync/sync/warp.hpp>

__global__ void kernel(int* values)
{
#if defined(UMSYNC_CF_CONTROL)
  umsync::warp_tile<32> const tile;
#else
  umsync::warp_tile<64> const tile;  // two warps
#endif
  values[threadIdx.x] = tile.shfl(values[threadIdx.x], 0);
}
