// Rule: a warp is a producer or a consumer of one producer/consumer barrier, not both: it would
// arrive twice, and the barrier counts each warp once.
// expect-error: umsync: a warp cannot be both producer and consumer of one barrier; it would arrive twice
#include <umsync/sync/named_barrier.hpp>

__global__ void kernel()
{
#if defined(UMSYNC_CF_CONTROL)
  umsync::producer_consumer_barrier<2, 0x0F, 0x30> const full;
#else
  umsync::producer_consumer_barrier<2, 0x0F, 0x18> const full;  // warps 0..3 produce, warps 3..4 consume
#endif
  if (threadIdx.x < 128) {
    full.producer_arrive();
  } else {
    full.consumer_wait();
  }
}
