// Rule: release() is for a tile generic code read or wrote; a tile handed to a bulk store comes
// back only through its store_token, whose wait() lets the store read it first.
// expect-error: umsync: release() is for a tile generic code read or wrote; an async_visible tile comes back through its store_token
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
  auto next = std::move(visible).release();  // fence and barrier, as after generic reads
  static_cast<void>(std::move(token).wait());
#endif
  if (threadIdx.x == 0) {
    umsync::bulk_fill(bar).load(std::move(next), in + 256).arrive();
  }
  auto again = bar.wait(phase, tile).read();
  out[256 + threadIdx.x] = again[threadIdx.x];
}
