// Rule: a signal's first template argument is the memory its word lives in (block_shared,
// device_global or system_visible), not the word's type; the scope follows from the memory.
// expect-error: umsync: the memory kind of a signal is block_shared, device_global or system_visible
#include <umsync/sync/signal.hpp>

__global__ void kernel(std::uint32_t* word)
{
#if defined(UMSYNC_CF_CONTROL)
  umsync::flag<umsync::device_global, cuda::thread_scope_device> const ready{word};
#else
  umsync::flag<std::uint32_t, cuda::thread_scope_device> const ready{word};
#endif
  ready.post();
}
