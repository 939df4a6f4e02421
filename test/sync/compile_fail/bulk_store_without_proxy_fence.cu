// Rule: shared memory written by generic code is read by a bulk (TMA) store only after
// fence.proxy.async.shared::cta in every writing thread and a barrier; __syncthreads() alone
// does not order the proxies (MoonshotAI/FlashKDA #24, NVIDIA/Fuser #4804).
// expect-error: umsync: shared memory written by generic code is handed to a bulk (TMA) store only after fence.proxy.async.shared::cta in every writing thread and a barrier: call publish_to_async() on the tile first
#include <umsync/sync/bulk_copy.hpp>

__global__ void kernel(float* out)
{
  __shared__ umsync::shared_tile<float, 256> tile;
  auto data = tile.first_use().write();
  data[threadIdx.x] = static_cast<float>(threadIdx.x);
#if defined(UMSYNC_CF_CONTROL)
  auto token = umsync::bulk_store(out, std::move(data).publish_to_async(), threadIdx.x == 0);
#else
  __syncthreads();
  auto token = umsync::bulk_store(out, std::move(data), threadIdx.x == 0);
#endif
  static_cast<void>(std::move(token).wait());
}
