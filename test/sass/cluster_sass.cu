// Pairs of kernels for scripts/ci/sass-check.sh: raw_cluster_<name> is written as the CUDA
// programming guide writes it (cooperative groups' this_cluster(), or the raw PTX),
// umsync_cluster_<name> with umsync's cluster types (sync/cluster.hpp). The script requires each
// pair to give identical SASS, with the same cluster barrier (UCGABAR_*) lines. Not part of any
// test executable.
#include <umsync/sync/cluster.hpp>

#include <cooperative_groups.h>

namespace {

constexpr unsigned threads = 256;

// Each block sums its 256 inputs in shared memory (tile[0]), so the cluster barrier has work on
// both sides to be placed between.
__device__ __forceinline__ void block_sum(unsigned const* in, unsigned* tile)
{
  tile[threadIdx.x] = in[blockIdx.x * threads + threadIdx.x];
  for (unsigned stride = threads / 2; stride > 0; stride >>= 1U) {
    __syncthreads();
    if (threadIdx.x < stride) {
      tile[threadIdx.x] += tile[threadIdx.x + stride];
    }
  }
  __syncthreads();
}

}  // namespace

// Thread r of every block adds block r's sum to the block's output: the cluster's total.
extern "C" __global__ void __cluster_dims__(4, 1, 1) raw_cluster_reduce(unsigned const* in, unsigned* out)
{
  __shared__ unsigned tile[threads];
  block_sum(in, tile);
  cooperative_groups::cluster_group const cluster = cooperative_groups::this_cluster();
  cluster.sync();
  if (threadIdx.x < cluster.num_blocks()) {
    unsigned const* const peer = cluster.map_shared_rank(tile, threadIdx.x);
    atomicAdd(out + blockIdx.x, peer[0]);
  }
  cluster.sync();
}

extern "C" __global__ void __cluster_dims__(4, 1, 1) umsync_cluster_reduce(unsigned const* in, unsigned* out)
{
  __shared__ unsigned tile[threads];
  block_sum(in, tile);
  umsync::cluster_shared_scope const scope;
  if (threadIdx.x < umsync::cluster::block_count()) {
    auto const peer = scope.map(tile, threadIdx.x);
    atomicAdd(out + blockIdx.x, peer[0]);
  }
}

// The split barrier with independent work between its halves, and the block's rank, read at
// run time (the cluster shape comes from the launch).
extern "C" __global__ void raw_cluster_split(unsigned const* in, unsigned* out)
{
  __shared__ unsigned tile[threads];
  tile[threadIdx.x] = in[blockIdx.x * threads + threadIdx.x];
  asm volatile("barrier.cluster.arrive.release;" ::: "memory");
  unsigned const independent = in[blockIdx.x * threads + threads - 1U - threadIdx.x] * 3U;
  asm volatile("barrier.cluster.wait.acquire;" ::: "memory");
  unsigned rank = 0;
  unsigned count = 0;
  asm("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  asm("mov.u32 %0, %%cluster_nctarank;" : "=r"(count));
  auto const* const peer = static_cast<unsigned const*>(__cluster_map_shared_rank(tile, (rank + 1U) % count));
  out[blockIdx.x * threads + threadIdx.x] = peer[threadIdx.x] + independent;
  asm volatile("barrier.cluster.arrive.release;\n\tbarrier.cluster.wait.acquire;" ::: "memory");
}

extern "C" __global__ void umsync_cluster_split(unsigned const* in, unsigned* out)
{
  __shared__ unsigned tile[threads];
  tile[threadIdx.x] = in[blockIdx.x * threads + threadIdx.x];
  auto arrival = umsync::cluster::arrive();
  unsigned const independent = in[blockIdx.x * threads + threads - 1U - threadIdx.x] * 3U;
  umsync::cluster_shared_scope const scope(arrival.wait());
  unsigned const next = (umsync::cluster::block_rank() + 1U) % umsync::cluster::block_count();
  auto const peer = scope.map(static_cast<unsigned const*>(tile), next);
  out[blockIdx.x * threads + threadIdx.x] = peer[threadIdx.x] + independent;
}
