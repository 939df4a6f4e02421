// Rule: another block's shared memory is mapped only inside a cluster_shared_scope, after the
// cluster barrier that shows every block of the cluster has started.
// expect-error: umsync: another block's shared memory is mapped only by cluster_shared_scope::map(), after the cluster barrier that shows every block has started
#include <umsync/sync/cluster.hpp>

__global__ void __cluster_dims__(2, 1, 1) kernel(unsigned* out)
{
  __shared__ unsigned partial;
  partial = threadIdx.x;
#if defined(UMSYNC_CF_CONTROL)
  umsync::cluster_shared_scope const scope;
  auto const peer = scope.map(&partial, umsync::cluster::block_rank() ^ 1U);
#else
  umsync::remote_shared<unsigned> const peer(&partial, umsync::cluster::block_rank() ^ 1U);
#endif
  out[threadIdx.x] = peer[0];
}
