// Rule: a tensor copy moves a box into the map's tile type, not into a linear shared_tile of the
// same size, whose readers know neither the box's shape nor its swizzle.
// expect-error: umsync: a tensor copy moves a box: its tile is the map's shared_tile_type, not a linear shared_tile
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
  __shared__ umsync::shared_tile<std::uint16_t, 64 * 32> tile;
#endif
  if (threadIdx.x == 0) {
    umsync::bulk_fill(bars[0]).load(tile.first_use(), source.box_at(0, 0)).arrive();
  }
}
