// Rule: a one-dimensional bulk copy fills a linear tile: copied into a swizzled box tile, its
// elements would not be where the tile's index looks for them.
// expect-error: umsync: a one-dimensional bulk copy moves a linear shared_tile; a tensor map's box tile is copied through map.box_at(...)
#include <umsync/sync/bulk_copy.hpp>

#include <cstdint>

using map = umsync::tensor_map<std::uint16_t const, umsync::box<64, 32>, umsync::tensor_swizzle::bytes_128>;

__global__ void kernel(map const __grid_constant__ source, std::uint16_t const* flat)
{
  __shared__ umsync::transaction_barrier_storage<umsync::barrier_scope::block> full[2];
  auto [bars, phases] = umsync::init_barriers(full, 1).publish();
  __shared__ map::shared_tile_type tile;
  if (threadIdx.x == 0) {
#if defined(UMSYNC_CF_CONTROL)
    umsync::bulk_fill(bars[0]).load(tile.first_use(), source.box_at(0, 0)).arrive();
#else
    umsync::bulk_fill(bars[0]).load(tile.first_use(), flat).arrive();
#endif
  }
}
