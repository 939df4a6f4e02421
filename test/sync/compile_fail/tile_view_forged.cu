// Rule: a tile view's state comes from the synchronization that made it true (first use, a
// barrier wait, release(), a waited store); a view cannot be made from a pointer.
// expect-error: umsync: a tile view comes only from shared_tile::first_use(), a transaction barrier wait, release() or a waited store_token
#include <umsync/sync/proxy.hpp>

using loaded_tile = umsync::tile<float, 256, umsync::tile_state::loaded>;

__global__ void kernel(float* out)
{
  __shared__ umsync::shared_tile<float, 256> tile;
#if defined(UMSYNC_CF_CONTROL)
  auto data = tile.first_use().write();
#else
  loaded_tile forged(tile.elements);
  auto data = std::move(forged).write();
#endif
  data[threadIdx.x] = 1.0F;
  out[threadIdx.x] = data[threadIdx.x];
}
