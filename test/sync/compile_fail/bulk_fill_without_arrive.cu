// Rule: a bulk fill ends with arrive(), which expects exactly the bytes its copies deliver;
// a fill dropped after its loads would leave the barrier waiting.
// expect-error: umsync: a bulk fill must end with arrive(), which tells the barrier the bytes its copies deliver
#include <umsync/sync/bulk_copy.hpp>

__global__ void kernel(float const* in)
{
  __shared__ umsync::transaction_barrier_storage<umsync::barrier_scope::block> full;
  __shared__ umsync::shared_tile<float, 1024> tile;
  auto [bar, phase] = umsync::init_barriers(full, 1).publish();
  if (threadIdx.x == 0) {
#if defined(UMSYNC_CF_CONTROL)
    umsync::bulk_fill(bar).load(tile.first_use(), in).arrive();
#else
    umsync::bulk_fill(bar).load(tile.first_use(), in);
#endif
  }
  bar.wait(phase);
}
