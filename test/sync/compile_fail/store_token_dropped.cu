// Rule: a bulk store's shared source is reused, and the block exits, only after the store has
// read it (cp.async.bulk.wait_group.read); the token that says so cannot be dropped.
// expect-error: umsync: a bulk store's token must be waited (wait()) before its tile is written or refilled, and before the block exits
#include <umsync/sync/bulk_copy.hpp>

__global__ void kernel(float* out)
{
  __shared__ umsync::shared_tile<float, 256> tile;
  auto data = tile.first_use().write();
  data[threadIdx.x] = static_cast<float>(threadIdx.x);
#if defined(UMSYNC_CF_CONTROL)
  auto token = umsync::bulk_store(out, std::move(data).publish_to_async(), threadIdx.x == 0);
  static_cast<void>(std::move(token).wait());
#else
  umsync::bulk_store(out, std::move(data).publish_to_async(), threadIdx.x == 0);
#endif
}
