// Rule: a bulk fill arrives only after at least one load(): a fill with nothing to count is a
// plain arrival, which the barrier's own arrive() says.
// expect-error: umsync: a bulk fill arrives after at least one load()
#include <umsync/sync/bulk_copy.hpp>

__global__ void kernel(float const* in, float* out, unsigned tiles)
{
  __shared__ umsync::transaction_barrier_storage<umsync::barrier_scope::block> full;
  __shared__ umsync::shared_tile<float, 256> tile;
  auto [bar, phase] = umsync::init_barriers(full, 1).publish();
  if (threadIdx.x == 0) {
    if (blockIdx.x < tiles) {
      umsync::bulk_fill(bar).load(tile.first_use(), in + blockIdx.x * 256).arrive();
    } else {
#if defined(UMSYNC_CF_CONTROL)
      bar.arrive();
#else
      umsync::bulk_fill(bar).arrive();  // no tile left: complete the phase anyway
#endif
    }
  }
  auto data = bar.wait(phase, tile).read();
  if (blockIdx.x < tiles) {
    out[blockIdx.x * 256 + threadIdx.x] = data[threadIdx.x];
  }
}
