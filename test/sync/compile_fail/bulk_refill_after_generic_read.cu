// Rule: a stage that generic code read is refilled by a bulk (TMA) copy only after release():
// fence.proxy.async.shared::cta in every reading thread, then a barrier (deepseek-ai/DeepEP #642).
// expect-error: umsync: a stage that generic code read or wrote is refilled by a bulk (TMA) copy only after release(): fence.proxy.async.shared::cta in every thread that accessed it, then a barrier
#include <umsync/sync/bulk_copy.hpp>

__global__ void kernel(float const* in, float* out)
{
  __shared__ umsync::transaction_barrier_storage<umsync::barrier_scope::block> full;
  __shared__ umsync::shared_tile<float, 256> tile;
  auto [bar, phase] = umsync::init_barriers(full, 1).publish();
  if (threadIdx.x == 0) {
    umsync::bulk_fill(bar).load(tile.first_use(), in).arrive();
  }
  auto data = bar.wait(phase, tile).read();
  out[threadIdx.x] = data[threadIdx.x];
#if defined(UMSYNC_CF_CONTROL)
  auto refill = std::move(data).release();
#else
  __syncthreads();
  auto& refill = data;
#endif
  if (threadIdx.x == 0) {
    umsync::bulk_fill(bar).load(std::move(refill), in + 256).arrive();
  }
  auto again = bar.wait(phase, tile).read();
  out[256 + threadIdx.x] = again[threadIdx.x];
}
