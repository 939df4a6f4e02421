// Rule: a tensor copy fills the map's own tile type: a tile expecting another swizzle (or none)
// would read the box's elements from the wrong places.
// expect-error: umsync: a tensor copy's tile has the map's swizzle (tensor_map<...>::shared_tile_type)
#include <umsync/sync/bulk_copy.hpp>

#include <cstdint>

using map = umsync::tensor_map<std::uint16_t const, umsync::box<64, 32>, umsync::tensor_swizzle::bytes_128>;

__global__ void kernel(map const __grid_constant__ source)
{
  __shared__ umsync::transaction_barrier_storage<umsync::barrier_scope::block> full[2];
  auto [bars, phases] = umsync::init_barriers(full, 1).publish();
#if defined(UMSYNC_CF_CONTROL)
  __shared__ map::shared_tile_type tile;
#else
  __shared__ umsync::tensor_map<std::uint16_t const, umsync::box<64, 32>>::shared_tile_type tile;
#endif
  if (threadIdx.x == 0) {
    umsync::bulk_fill(bars[0]).load(tile.first_use(), source.box_at(0, 0)).arrive();
  }
}
