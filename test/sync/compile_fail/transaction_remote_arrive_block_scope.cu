// Rule: an arrival from another block of the cluster is made only on a cluster-scope barrier
// (release.cluster / acquire.cluster); a block-scope barrier's order does not reach another
// block's writes (NVIDIA/cutlass #3324).
// expect-error: umsync: a remote (cluster) arrival needs a cluster-scope transaction barrier (barrier_scope::cluster): a block-scope barrier's release and acquire do not order another block's writes
#include <umsync/sync/transaction_barrier.hpp>

#if defined(UMSYNC_CF_CONTROL)
constexpr auto scope = umsync::barrier_scope::cluster;
#else
constexpr auto scope = umsync::barrier_scope::block;
#endif

__global__ void __cluster_dims__(2, 1, 1) kernel()
{
  __shared__ umsync::transaction_barrier_storage<scope> full;
  auto [bar, phase] = umsync::init_barriers(full, 1).publish();
  if (threadIdx.x == 0) {
    bar.arrive_remote(umsync::cluster::block_rank() ^ 1U);
  }
  bar.wait(phase);
  static_cast<void>(umsync::cluster::sync());
}
