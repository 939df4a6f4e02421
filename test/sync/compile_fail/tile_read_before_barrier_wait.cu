// Rule: read() is for a tile a barrier wait made visible (loaded) or one this block wrote: an
// empty tile's bulk copy may still be in flight, and nothing orders its bytes before the reads.
// expect-error: umsync: read() is for a tile a barrier wait made visible (loaded) or one this block wrote
#include <umsync/sync/bulk_copy.hpp>

__global__ void kernel(float const* in, float* out)
{
  __shared__ umsync::transaction_barrier_storage<umsync::barrier_scope::block> full;
  __shared__ umsync::shared_tile<float, 256> tile;
  auto [bar, phase] = umsync::init_barriers(full, 1).publish();
  if (threadIdx.x == 0) {
    umsync::bulk_fill(bar).load(tile.first_use(), in).arrive();
  }
#if defined(UMSYNC_CF_CONTROL)
  auto data = bar.wait(phase, tile).read();
#else
  __syncthreads();
  auto data = tile.first_use().read();  // the copy was issued before the barrier
#endif
  out[threadIdx.x] = data[threadIdx.x];
}
