// Rule: one barrier phase expects at most 2^20 - 1 bytes (PTX ISA, mbarrier: the tx-count range);
// a fill whose static byte total is larger could never be told its bytes.
// expect-error: umsync: one barrier phase expects at most 2^20 - 1 bytes (PTX ISA, mbarrier tx-count)
#include <umsync/sync/bulk_copy.hpp>

constexpr std::size_t tile_bytes = 128 * 1024;
#if defined(UMSYNC_CF_CONTROL)
using stage_tile = umsync::shared_tile<double, tile_bytes / sizeof(double)>;
#else
using stage_tile = umsync::shared_tile<double, tile_bytes>;  // N counts elements: 1 MiB, not 128 KiB
#endif

// Launched with stage_tile's bytes of dynamic shared memory.
__global__ void kernel(double const* in, double* out)
{
  __shared__ umsync::transaction_barrier_storage<umsync::barrier_scope::block> full;
  extern __shared__ stage_tile tiles[];
  auto [bar, phase] = umsync::init_barriers(full, 1).publish();
  if (threadIdx.x == 0) {
    umsync::bulk_fill(bar).load(tiles[0].first_use(), in).arrive();
  }
  auto data = bar.wait(phase, tiles[0]).read();
  out[threadIdx.x] = data[threadIdx.x];
}
