// Rule: a stage that generic code wrote is refilled by bulk_load() only after release():
// fence.proxy.async.shared::cta in every writing thread, then a barrier; without the fence the
// generic stores and the async copy's writes are not ordered (PTX ISA, proxies).
// expect-error: umsync: a stage that generic code read or wrote is refilled by a bulk (TMA) copy only after release(): fence.proxy.async.shared::cta in every thread that accessed it, then a barrier
#include <umsync/sync/bulk_copy.hpp>

__global__ void kernel(float const* in, float* out)
{
  __shared__ umsync::transaction_barrier_storage<umsync::barrier_scope::block> full;
  __shared__ umsync::shared_tile<float, 256> tile;
  auto [bar, phase] = umsync::init_barriers(full, 1).publish();
  auto scratch = tile.first_use().write();
  scratch[threadIdx.x] = in[threadIdx.x] * 2.0F;
  out[threadIdx.x] = scratch[255 - threadIdx.x];
#if defined(UMSYNC_CF_CONTROL)
  auto refill = std::move(scratch).release();
#else
  __syncthreads();
  auto& refill = scratch;
#endif
  if (threadIdx.x == 0) {
    umsync::bulk_load(std::move(refill), in + 256, 256, bar);
    bar.arrive_expect_tx(256 * sizeof(float));
  }
  auto again = bar.wait(phase, tile).read();
  out[256 + threadIdx.x] = again[threadIdx.x];
}
