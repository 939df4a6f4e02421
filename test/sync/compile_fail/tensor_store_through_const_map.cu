// Rule: a tensor map of const elements describes memory the kernel only reads: it loads, never
// stores.
// expect-error: umsync: a tensor map of const elements only loads: a tensor store needs tensor_map<T, ...>
#include <umsync/sync/bulk_copy.hpp>

#include <cstdint>

#if defined(UMSYNC_CF_CONTROL)
using map = umsync::tensor_map<std::uint16_t, umsync::box<64, 32>, umsync::tensor_swizzle::bytes_128>;
#else
using map = umsync::tensor_map<std::uint16_t const, umsync::box<64, 32>, umsync::tensor_swizzle::bytes_128>;
#endif

__global__ void kernel(map const __grid_constant__ target)
{
  __shared__ map::shared_tile_type tile;
  auto data = tile.first_use().write();
  data[threadIdx.x] = static_cast<std::uint16_t>(threadIdx.x);
  auto token = umsync::tensor_store(target.box_at(0, 0), std::move(data).publish_to_async(), threadIdx.x == 0);
  static_cast<void>(std::move(token).wait());
}
