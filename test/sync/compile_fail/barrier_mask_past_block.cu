// Rule: a named barrier's warps are warps of the block (warps are numbered from 0, linear thread
// index / 32); a warp past the last one never arrives, and the barrier never completes.
// expect-error: umsync: a named barrier's warp mask names a warp beyond the last warp of the block
#include <umsync/sync/named_barrier.hpp>

__global__ void kernel()
{
#if defined(UMSYNC_CF_CONTROL)
  umsync::named_barrier<1, 0x0F, 128> const group;
#else
  umsync::named_barrier<1, 0x1E, 128> const group;  // warps 1..4 of a 4-warp block
#endif
  group.sync();
}
