// Rule: a thread's phases advance only by its own waits, so they cannot be copied: two copies
// would drift apart and one would wait for a phase that already completed.
// expect-error: umsync: a barrier_phase cannot be copied: a thread's phase advances only by its own waits, and two copies would drift apart; move it (std::move)
#include <umsync/sync/transaction_barrier.hpp>

__global__ void kernel()
{
  __shared__ umsync::transaction_barrier_storage<umsync::barrier_scope::block> full[2];
  auto [bars, phases] = umsync::init_barriers(full, blockDim.x).publish();
  bars[0].arrive();
#if defined(UMSYNC_CF_CONTROL)
  auto& kept = phases;
#else
  auto kept = phases;  // a second set of parities, which the waits below do not advance
#endif
  bars.wait(0, kept);
  bars[0].arrive();
  bars.wait(0, phases);
}
