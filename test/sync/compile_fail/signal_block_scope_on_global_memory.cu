// Rule: block scope does not order global memory between blocks, so a device_global signal
// takes device or system scope.
// expect-error: umsync: block scope does not order global memory between blocks; use device or system scope
#include <umsync/sync/signal.hpp>

__global__ void kernel(std::uint64_t* word)
{
#if defined(UMSYNC_CF_CONTROL)
  umsync::counter<umsync::device_global> const tiles{word};
#else
  umsync::counter<umsync::device_global, cuda::thread_scope_block> const tiles{word};
#endif
  tiles.add(1);
}
