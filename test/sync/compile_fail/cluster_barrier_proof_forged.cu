// Rule: the proof that opens a cluster_shared_scope comes only from a cluster barrier that has
// completed (cluster::sync() or cluster_arrival::wait()).
// expect-error: umsync: a cluster_barrier_passed proof comes only from cluster::sync() or cluster_arrival::wait(); it cannot be made
#include <umsync/sync/cluster.hpp>

__global__ void __cluster_dims__(2, 1, 1) kernel(unsigned* out)
{
  __shared__ unsigned partial;
  partial = threadIdx.x;
#if defined(UMSYNC_CF_CONTROL)
  umsync::cluster_shared_scope const scope(umsync::cluster::sync());
#else
  umsync::cluster_shared_scope const scope(umsync::cluster_barrier_passed{});
#endif
  out[threadIdx.x] = scope.map(&partial, umsync::cluster::block_rank() ^ 1U)[0];
}
