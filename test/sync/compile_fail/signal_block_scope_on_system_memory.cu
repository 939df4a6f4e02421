// Rule: a signal in memory the host or another GPU sees (pinned, managed, peer) needs system
// scope; a narrower scope does not order the writes for them.
// expect-error: umsync: memory the host or another GPU sees (system_visible) needs cuda::thread_scope_system
#include <umsync/sync/signal.hpp>

__global__ void kernel(std::uint32_t* word)
{
#if defined(UMSYNC_CF_CONTROL)
  umsync::flag<umsync::system_visible, cuda::thread_scope_system> const done{word};
#else
  umsync::flag<umsync::system_visible, cuda::thread_scope_block> const done{word};
#endif
  done.post();
}
