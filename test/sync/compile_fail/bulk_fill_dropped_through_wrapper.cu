// Rule: a fill ends with arrive(); returned through the user's own helper and dropped there, it is
// refused by its type, not only by load()'s result.
// expect-error: umsync: a bulk fill must end with arrive(), which tells the barrier the bytes its copies deliver
#include <umsync/sync/bulk_copy.hpp>

template <class Barrier, class Tile>
__device__ auto start_fill(Barrier const& bar, Tile&& tile, float const* in)
{
  return umsync::bulk_fill(bar).load(std::move(tile), in);
}

__global__ void kernel(float const* in)
{
  __shared__ umsync::transaction_barrier_storage<umsync::barrier_scope::block> full[2];
  __shared__ umsync::shared_tile<float, 256> tile;
  auto [bars, phases] = umsync::init_barriers(full, 1).publish();
  if (threadIdx.x == 0) {
#if defined(UMSYNC_CF_CONTROL)
    start_fill(bars[0], tile.first_use(), in).arrive();
#else
    start_fill(bars[0], tile.first_use(), in);
#endif
  }
}
