// Rule: an initialised transaction barrier is published before use; dropping the result of
// init_barriers() leaves it unpublished, so it does not compile.
// expect-error: umsync: an initialised transaction barrier is used only after publish(): keep the result and call publish()
#include <umsync/sync/transaction_barrier.hpp>

__global__ void kernel()
{
  __shared__ umsync::transaction_barrier_storage<umsync::barrier_scope::block> full;
#if defined(UMSYNC_CF_CONTROL)
  auto [bar, phase] = umsync::init_barriers(full, blockDim.x).publish();
  static_cast<void>(bar);
#else
  umsync::init_barriers(full, blockDim.x);
#endif
}
