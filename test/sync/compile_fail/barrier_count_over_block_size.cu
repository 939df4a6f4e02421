// Rule: a named barrier cannot wait for more threads than the block has; it would never complete.
// expect-error: umsync: a named barrier's thread count (32 * warps in its mask) is larger than the block size
#include <umsync/sync/named_barrier.hpp>

__global__ void kernel()
{
#if defined(UMSYNC_CF_CONTROL)
  umsync::named_barrier<1, 0x0F, 128> const group;  // 4 warps, 128 threads
#else
  umsync::named_barrier<1, 0xFF, 128> const group;  // 8 warps in a 4-warp block
#endif
  group.sync();
}
