// Rule: the proof that opens a cluster_shared_scope is the barrier call's own result, handed over
// at once: a proof kept in a variable cannot be spent later, after writes the barrier did not order.
// expect-error: umsync: a cluster_barrier_passed proof cannot be stored or moved: pass the barrier's own result to cluster_shared_scope at once (cluster_shared_scope scope(arrival.wait())), so nothing comes between the barrier and the scope it opens
#include <umsync/sync/cluster.hpp>

__global__ void __cluster_dims__(2, 1, 1) kernel(unsigned* out)
{
  __shared__ unsigned partial;
#if defined(UMSYNC_CF_CONTROL)
  partial = threadIdx.x;
  umsync::cluster_shared_scope const scope(umsync::cluster::sync());
#else
  auto proof = umsync::cluster::sync();
  partial = threadIdx.x;  // after the barrier: the peer may read it before it is written
  umsync::cluster_shared_scope const scope(std::move(proof));
#endif
  out[threadIdx.x] = scope.map(&partial, umsync::cluster::block_rank() ^ 1U)[0];
}
