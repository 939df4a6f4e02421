// Rule: a cluster arrival is waited before the thread arrives again; the type is nodiscard, so an
// arrival returned through the caller's own function cannot be dropped either.
// expect-error: umsync: a cluster arrival must be waited: keep it and call wait() before the next cluster barrier
#include <umsync/sync/cluster.hpp>

__device__ auto my_arrive() { return umsync::cluster::arrive(); }

__global__ void __cluster_dims__(2, 1, 1) kernel()
{
#if defined(UMSYNC_CF_CONTROL)
  auto arrival = my_arrive();
  static_cast<void>(arrival.wait());
#else
  my_arrive();
#endif
}
