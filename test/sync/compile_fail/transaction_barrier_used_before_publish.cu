// Rule: a transaction barrier is used only after publish(): fence.mbarrier_init in the
// initialising thread, then a block or cluster barrier (PTX ISA, mbarrier.init).
// expect-error: umsync: a transaction barrier is used only after publish()
#include <umsync/sync/transaction_barrier.hpp>

__global__ void kernel()
{
  __shared__ umsync::transaction_barrier_storage<umsync::barrier_scope::block> full;
#if defined(UMSYNC_CF_CONTROL)
  auto [bar, phase] = umsync::init_barriers(full, blockDim.x).publish();
  bar.arrive();
  bar.wait(phase);
#else
  auto pending = umsync::init_barriers(full, blockDim.x);
  pending.arrive();
#endif
}
