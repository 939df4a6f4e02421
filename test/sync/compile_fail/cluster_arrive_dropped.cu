// Rule: a cluster arrival is waited before the thread arrives again; dropping it does not compile.
// expect-error: umsync: a cluster arrival must be waited: keep it and call wait() before the next cluster barrier
#include <umsync/sync/cluster.hpp>

__global__ void __cluster_dims__(2, 1, 1) kernel()
{
#if defined(UMSYNC_CF_CONTROL)
  auto arrival = umsync::cluster::arrive();
  static_cast<void>(arrival.wait());
#else
  umsync::cluster::arrive();
#endif
}
