// Rule: a tile view keeps the state it was made in; each step returns a new view of the next
// state, which is kept under its own name (assigning it back to the old name would need the
// view to change type).
// expect-error: umsync: a tile view keeps the state it was made in; a step that changes the state (read(), write(), publish_to_async(), release()) returns a new view: keep that one (auto next = std::move(view).release();) instead of assigning it to a view of another state
#include <umsync/sync/proxy.hpp>

__global__ void kernel(float* out)
{
  __shared__ umsync::shared_tile<float, 256> tile;
  auto data = tile.first_use().write();
  data[threadIdx.x] = 1.0F;
  auto read = std::move(data).read();
  out[threadIdx.x] = read[threadIdx.x];
#if defined(UMSYNC_CF_CONTROL)
  auto empty = std::move(read).release();
  static_cast<void>(empty);
#else
  read = std::move(read).release();
#endif
}
