// Rule: a monotonic counter waits for "at least" only; a wait for equality hangs as soon as the
// counter overshoots the value. Equality waits belong to umsync::exact_value.
// expect-error: umsync: a monotonic counter waits with wait_at_least() only; an equality wait hangs once the counter overshoots (use umsync::exact_value for values that are stored, not counted)
#include <umsync/sync/signal.hpp>

__global__ void kernel(std::uint64_t* word)
{
  umsync::counter<umsync::device_global> const tiles{word};
#if defined(UMSYNC_CF_CONTROL)
  tiles.wait_at_least(4);
#else
  tiles.wait_equal(4);
#endif
}
