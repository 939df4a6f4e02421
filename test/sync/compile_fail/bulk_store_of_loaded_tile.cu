// Rule: a bulk store takes only a tile that publish_to_async() handed to the async proxy: the
// fence and barrier it issues are what order the block's accesses before the store reads.
// expect-error: umsync: a bulk store takes a tile that publish_to_async() handed to the async proxy
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
  auto source = bar.wait(phase, tile).publish_to_async();
#else
  auto source = bar.wait(phase, tile);  // loaded: copy it straight back out
#endif
  auto token = umsync::bulk_store(out, std::move(source), threadIdx.x == 0);
  static_cast<void>(std::move(token).wait());
}
