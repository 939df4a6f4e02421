// Rule: a tile handed to a bulk store is refilled by bulk_load() only after its store_token has
// been waited (cp.async.bulk.wait_group.read): the load could overwrite what the store has not
// yet read.
// expect-error: umsync: a tile handed to a bulk store is refilled only after its store_token has been waited
#include <umsync/sync/bulk_copy.hpp>

__global__ void kernel(float const* in, float* out)
{
  __shared__ umsync::transaction_barrier_storage<umsync::barrier_scope::block> full;
  __shared__ umsync::shared_tile<float, 256> tile;
  auto [bar, phase] = umsync::init_barriers(full, 1).publish();
  auto data = tile.first_use().write();
  data[threadIdx.x] = in[threadIdx.x] * 2.0F;
  auto visible = std::move(data).publish_to_async();
  auto token = umsync::bulk_store(out, std::move(visible), threadIdx.x == 0);
#if defined(UMSYNC_CF_CONTROL)
  auto next = std::move(token).wait();
#else
  auto& next = visible;  // the store was issued: load the next tile at once
#endif
  if (threadIdx.x == 0) {
    umsync::bulk_load(std::move(next), in + 256, 256, bar);
    bar.arrive_expect_tx(256 * sizeof(float));
  }
  auto again = bar.wait(phase, tile).read();
  out[256 + threadIdx.x] = again[threadIdx.x];
#if !defined(UMSYNC_CF_CONTROL)
  static_cast<void>(std::move(token).wait());
#endif
}
