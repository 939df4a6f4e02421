// Rule: a remote_shared view is neither copied nor stored, so it cannot outlive the
// cluster_shared_scope whose closing barrier keeps the peer's shared memory alive.
// expect-error: umsync: a remote_shared view cannot be copied or stored: it is valid only inside the cluster_shared_scope that mapped it
#include <umsync/sync/cluster.hpp>

__device__ unsigned read_peer(umsync::cluster_shared_scope const& scope, unsigned* local)
{
  auto peer = scope.map(local, umsync::cluster::block_rank() ^ 1U);
#if defined(UMSYNC_CF_CONTROL)
  auto const& kept = peer;
#else
  auto const kept = peer;  // a copy could be returned past the scope's closing barrier
#endif
  return kept[0];
}

__global__ void __cluster_dims__(2, 1, 1) kernel(unsigned* out)
{
  __shared__ unsigned partial;
  partial = threadIdx.x;
  umsync::cluster_shared_scope const scope;
  out[threadIdx.x] = read_peer(scope, &partial);
}
