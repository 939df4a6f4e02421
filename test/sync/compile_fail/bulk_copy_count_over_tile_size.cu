// Rule: a bulk copy of load<Count> stays inside its tile: Count is at most the tile's N elements
// (a larger copy would write past the shared_tile into whatever shared memory follows).
// expect-error: umsync: a bulk copy of more elements than the tile holds
#include <umsync/sync/bulk_copy.hpp>

__global__ void kernel(float const* in, float* out)
{
  __shared__ umsync::transaction_barrier_storage<umsync::barrier_scope::block> full;
  __shared__ umsync::shared_tile<float, 256> tile;
#if defined(UMSYNC_CF_CONTROL)
  constexpr std::size_t row = 256;
#else
  constexpr std::size_t row = 512;  // the global row, not the tile
#endif
  auto [bar, phase] = umsync::init_barriers(full, 1).publish();
  if (threadIdx.x == 0) {
    umsync::bulk_fill(bar).load<row>(tile.first_use(), in).arrive();
  }
  auto data = bar.wait(phase, tile).read();
  out[threadIdx.x] = data[threadIdx.x];
}
