// Rule: a bulk store's token is waited before its tile is reused; returned through the user's own
// helper and dropped there, it is refused by its type, not only by bulk_store's result.
// expect-error: umsync: a bulk store's token must be waited (wait()) before its tile is written or refilled, and before the block exits
#include <umsync/sync/bulk_copy.hpp>

template <class Tile>
__device__ auto store_all(float* out, Tile&& tile)
{
  return umsync::bulk_store(out, std::move(tile).publish_to_async(), threadIdx.x == 0);
}

__global__ void kernel(float* out)
{
  __shared__ umsync::shared_tile<float, 256> tile;
  auto data = tile.first_use().write();
  data[threadIdx.x] = static_cast<float>(threadIdx.x);
#if defined(UMSYNC_CF_CONTROL)
  static_cast<void>(store_all(out, std::move(data)).wait());
#else
  store_all(out, std::move(data));
#endif
}
