// Rule: a tile handed to a bulk store is refilled by a bulk fill only after its store_token has
// been waited (cp.async.bulk.wait_group.read): the load could overwrite what the store has not
// yet read.
// expect-error: umsync: a tile handed to a bulk store is refilled only after its store_token has been waited
#include <umsync/sync/bulk_copy.hpp>

__global__ void kernel(float const* in, float* out)
{
  __shared__ umsync::transaction_barrier_storage<umsync::barrier_scope::block> full;
  __shared__ umsync::shared_tile<float, 256> tile;
  auto [bar, phase] = umsync::init_barriers(full, 1).publish();
  if (threadIdx.x == 0) {
    umsync::bulk_fill(bar).load(tile.first_use(), in).arrive();
  }
  auto visible = bar.wait(phase, tile).publish_to_async();
  auto token = umsync::bulk_store(out, std::move(visible), threadIdx.x == 0);
#if defined(UMSYNC_CF_CONTROL)
  auto next = std::move(token).wait();
#else
  auto& next = visible;  // the store was issued: load the next tile at once
#endif
  if (threadIdx.x == 0) {
    umsync::bulk_fill(bar).load(std::move(next), in + 256).arrive();
  }
  auto again = bar.wait(phase, tile).publish_to_async();
  auto last = umsync::bulk_store(out + 256, std::move(again), threadIdx.x == 0);
  static_cast<void>(std::move(last).wait());
#if !defined(UMSYNC_CF_CONTROL)
  static_cast<void>(std::move(token).wait());
#endif
}
