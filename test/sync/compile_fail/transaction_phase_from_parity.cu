// Rule: a wait names its phase through a barrier_phase, which only publish() makes and only a
// wait advances; a parity bit cannot be passed.
// expect-error: umsync: a barrier_phase comes only from publish() and advances only by a wait; a phase parity cannot be passed
#include <umsync/sync/transaction_barrier.hpp>

__global__ void kernel(unsigned iteration)
{
  __shared__ umsync::transaction_barrier_storage<umsync::barrier_scope::block> full;
  auto [bar, phase] = umsync::init_barriers(full, blockDim.x).publish();
  bar.arrive();
#if defined(UMSYNC_CF_CONTROL)
  static_cast<void>(iteration);
  bar.wait(phase);
#else
  umsync::barrier_phase guessed(iteration & 1U);
  bar.wait(guessed);
#endif
}
