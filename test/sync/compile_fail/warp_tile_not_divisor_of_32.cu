// Rule: a warp tile's lane count divides 32, so the warp cuts into whole tiles (1, 2, 4, 8, 16
// or 32 lanes).
// expect-error: umsync: a warp tile's lane count must divide 32 (1, 2, 4, 8, 16 or 32)
#include <umsync/sync/warp.hpp>

__global__ void kernel(int* values)
{
#if defined(UMSYNC_CF_CONTROL)
  umsync::warp_tile<16> const tile;
#else
  umsync::warp_tile<12> const tile;  // one row of a 12-wide tile
#endif
  values[threadIdx.x] = tile.shfl(values[threadIdx.x], 0);
}
