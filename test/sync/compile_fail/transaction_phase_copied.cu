// Rule: a thread's phase advances only by its own waits, so it cannot be copied: two copies would
// drift apart and one would wait for a phase that already completed.
// expect-error: umsync: a barrier_phase cannot be copied: a thread's phase advances only by its own waits, and two copies would drift apart; move it (std::move)
#include <umsync/sync/transaction_barrier.hpp>

__global__ void kernel()
{
  __shared__ umsync::transaction_barrier_storage<umsync::barrier_scope::block> full;
  auto [bar, phase] = umsync::init_barriers(full, blockDim.x).publish();
  bar.arrive();
#if defined(UMSYNC_CF_CONTROL)
  auto& kept = phase;
#else
  auto kept = phase;  // a second parity, which the waits below do not advance
#endif
  bar.wait(kept);
  bar.arrive();
  bar.wait(phase);
}
