// Rule: a producer/consumer barrier has at least one producer warp and one consumer warp; with no
// producer the consumers wait for no writes (a named_barrier of their warps says that).
// expect-error: umsync: a producer/consumer barrier needs at least one producer warp and one consumer warp
#include <umsync/sync/named_barrier.hpp>

#if defined(UMSYNC_CF_CONTROL)
constexpr unsigned load_warps = 1;
#else
constexpr unsigned load_warps = 0;  // the configuration where the math warps load their own tiles
#endif

__global__ void kernel()
{
  constexpr umsync::warp_mask_t loaders = (1U << load_warps) - 1U;
  umsync::producer_consumer_barrier<2, loaders, 0xF0> const full;
  if (threadIdx.x < 32 * load_warps) {
    full.producer_arrive();
  } else if (threadIdx.x >= 128) {
    full.consumer_wait();
  }
}
