// Rule: a bulk fill starts from its transaction barrier with no bytes counted; the byte total is
// the fill's own sum of its loads, not a template argument the caller names.
// expect-error: umsync: a bulk fill starts from a transaction barrier
#include <umsync/sync/bulk_copy.hpp>

__global__ void kernel(float const* in, float* out)
{
  __shared__ umsync::transaction_barrier_storage<umsync::barrier_scope::block> full;
  __shared__ umsync::shared_tile<float, 256> tile;
  auto [bar, phase] = umsync::init_barriers(full, 1).publish();
  if (threadIdx.x == 0) {
#if defined(UMSYNC_CF_CONTROL)
    umsync::bulk_fill<umsync::barrier_scope::block> fill(bar);
#else
    umsync::bulk_fill<umsync::barrier_scope::block, 256 * sizeof(float)> fill(bar);  // the tile's bytes
#endif
    std::move(fill).load(tile.first_use(), in).arrive();
  }
  auto data = bar.wait(phase, tile).read();
  out[threadIdx.x] = data[threadIdx.x];
}
