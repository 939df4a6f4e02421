// Rule: a named barrier's id is in 1..15; id 0 belongs to __syncthreads(), and a named barrier
// on it would mix counts with every __syncthreads() of the kernel.
// expect-error: umsync: named barrier id must be in 1..15; id 0 is __syncthreads()
#include <umsync/sync/named_barrier.hpp>

__global__ void kernel()
{
#if defined(UMSYNC_CF_CONTROL)
  umsync::named_barrier<1, 0x0F> const group;
#else
  umsync::named_barrier<0, 0x0F> const group;
#endif
  group.sync();
}
