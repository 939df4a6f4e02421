// Rule: a tensor copy's tile holds the map's element type.
// expect-error: umsync: a tensor copy's tile holds the map's element type (tensor_map<...>::shared_tile_type)
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
  __shared__ umsync::tensor_map<std::int16_t const, umsync::box<64, 32>,
                                umsync::tensor_swizzle::bytes_128>::shared_tile_type tile;
#endif
  if (threadIdx.x == 0) {
    umsync::bulk_fill(bars[0]).load(tile.first_use(), source.box_at(0, 0)).arrive();
  }
}
