// Rule: shared memory written by generic stores is read by a tensor store (the async proxy) only
// after fence.proxy.async and a barrier: publish_to_async() first.
// expect-error: umsync: shared memory written by generic code is handed to a bulk (TMA) store only after fence.proxy.async.shared::cta in every writing thread and a barrier: call publish_to_async() on the tile first
#include <umsync/sync/bulk_copy.hpp>

#include <cstdint>

using map = umsync::tensor_map<std::uint16_t, umsync::box<64, 32>, umsync::tensor_swizzle::bytes_128>;

__global__ void kernel(map const __grid_constant__ target)
{
  __shared__ map::shared_tile_type tile;
  auto data = tile.first_use().write();
  data[threadIdx.x] = static_cast<std::uint16_t>(threadIdx.x);
#if defined(UMSYNC_CF_CONTROL)
  auto token = umsync::tensor_store(target.box_at(0, 0), std::move(data).publish_to_async(), threadIdx.x == 0);
#else
  auto token = umsync::tensor_store(target.box_at(0, 0), std::move(data), threadIdx.x == 0);
#endif
  static_cast<void>(std::move(token).wait());
}
