// Rule: a block has 16 hardware barriers, so a named barrier id is at most 15.
// expect-error: umsync: named barrier id must be in 1..15; a block has 16 hardware barriers
#include <umsync/sync/named_barrier.hpp>

__global__ void kernel()
{
#if defined(UMSYNC_CF_CONTROL)
  umsync::named_barrier<15, 0x03> const group;
#else
  umsync::named_barrier<16, 0x03> const group;
#endif
  group.sync();
}
