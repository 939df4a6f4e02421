// Rule: a counter's or exact value's word is std::uint32_t or std::uint64_t.
// expect-error: umsync: signal words are std::uint32_t or std::uint64_t
#include <umsync/sync/signal.hpp>

#if defined(UMSYNC_CF_CONTROL)
using word_t = std::uint32_t;
#else
using word_t = int;
#endif

__global__ void kernel(word_t* word)
{
  umsync::counter<umsync::device_global, cuda::thread_scope_device, word_t> const tiles{word};
  tiles.add(1);
}
