// Pairs of kernels for scripts/ci/sass-check.sh: raw_<name> written with CCCL's cuda::ptx as a
// hand-written TMA kernel would be, umsync_<name> with umsync's transaction barriers, bulk
// copies and tiles (sync/transaction_barrier.hpp, sync/bulk_copy.hpp, sync/proxy.hpp). The
// script requires each pair to give identical SASS. Not part of any test executable.
#include <umsync/sync/bulk_copy.hpp>

#include <cuda/ptx>

#include <cstdint>

namespace {

constexpr unsigned words = 2048;
// A prvalue: cuda::ptx takes sizes by reference, which would odr-use a host constant.
__host__ __device__ constexpr std::uint32_t tile_bytes() { return words * sizeof(std::uint32_t); }

__device__ __forceinline__ std::uint32_t transform(std::uint32_t x, unsigned k) { return x * 2654435761U + k; }

__device__ __forceinline__ void raw_wait(std::uint64_t* bar, std::uint32_t parity)
{
  while (!cuda::ptx::mbarrier_try_wait_parity(cuda::ptx::sem_acquire, cuda::ptx::scope_cta, bar, parity)) {
  }
}

}  // namespace

// One tile: bulk load on a block-scope barrier, transformed in place, fenced, bulk stored, the
// store's read awaited before the block exits.
extern "C" __global__ void raw_async_round_trip(std::uint32_t const* in, std::uint32_t* out)
{
  __shared__ std::uint64_t bar;
  __shared__ alignas(128) std::uint32_t tile[words];
  if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0) {
    cuda::ptx::mbarrier_init(&bar, 1);
    cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster);
  }
  __syncthreads();
  bool const issuer = threadIdx.x == 0;
  if (issuer) {
    cuda::ptx::cp_async_bulk(cuda::ptx::space_shared, cuda::ptx::space_global, tile, in + blockIdx.x * words,
                             tile_bytes(), &bar);
    static_cast<void>(cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta,
                                                           cuda::ptx::space_shared, &bar, tile_bytes()));
  }
  raw_wait(&bar, 0);
  for (unsigned i = threadIdx.x; i < words; i += blockDim.x) {
    tile[i] = transform(tile[i], blockIdx.x);
  }
  cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);
  __syncthreads();
  if (issuer) {
    cuda::ptx::cp_async_bulk(cuda::ptx::space_global, cuda::ptx::space_shared, out + blockIdx.x * words, tile,
                             tile_bytes());
    cuda::ptx::cp_async_bulk_commit_group();
    cuda::ptx::cp_async_bulk_wait_group_read(cuda::ptx::n32_t<0>{});
  }
  __syncthreads();
}

extern "C" __global__ void umsync_async_round_trip(std::uint32_t const* in, std::uint32_t* out)
{
  __shared__ umsync::transaction_barrier_storage<umsync::barrier_scope::block> full;
  __shared__ umsync::shared_tile<std::uint32_t, words> tile;
  auto [bar, phase] = umsync::init_barriers(full, 1).publish();
  bool const issuer = threadIdx.x == 0;
  if (issuer) {
    umsync::bulk_fill(bar).load(tile.first_use(), in + blockIdx.x * words).arrive();
  }
  auto data = bar.wait(phase, tile).write();
  for (unsigned i = threadIdx.x; i < words; i += blockDim.x) {
    data[i] = transform(data[i], blockIdx.x);
  }
  auto token = umsync::bulk_store(out + blockIdx.x * words, std::move(data).publish_to_async(), issuer);
  static_cast<void>(std::move(token).wait());
}

// Two stages in a loop: a run-time stage index, one parity bit per stage, the next tile's fill
// issued before the current tile is transformed and stored.
extern "C" __global__ void raw_async_two_stage(std::uint32_t const* in, std::uint32_t* out, unsigned tiles)
{
  __shared__ std::uint64_t bars[2];
  __shared__ alignas(128) std::uint32_t stage[2][words];
  if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0) {
    cuda::ptx::mbarrier_init(&bars[0], 1);
    cuda::ptx::mbarrier_init(&bars[1], 1);
    cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster);
  }
  __syncthreads();
  bool const issuer = threadIdx.x == 0;
  if (issuer) {
    cuda::ptx::cp_async_bulk(cuda::ptx::space_shared, cuda::ptx::space_global, stage[0], in, tile_bytes(), &bars[0]);
    static_cast<void>(cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta,
                                                           cuda::ptx::space_shared, &bars[0], tile_bytes()));
  }
  std::uint32_t* refill = stage[1];  // the stage the next fill writes, carried as the typed view is
  std::uint32_t parities = 0;
  unsigned s = 0;
  for (unsigned t = 0; t < tiles; ++t, s ^= 1U) {
    if (issuer && t + 1 < tiles) {
      cuda::ptx::cp_async_bulk(cuda::ptx::space_shared, cuda::ptx::space_global, refill, in + (t + 1) * words,
                               tile_bytes(), &bars[s ^ 1U]);
      static_cast<void>(cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta,
                                                             cuda::ptx::space_shared, &bars[s ^ 1U], tile_bytes()));
    }
    raw_wait(&bars[s], (parities >> s) & 1U);
    parities ^= 1U << s;
    std::uint32_t* const current = stage[s];
    for (unsigned i = threadIdx.x; i < words; i += blockDim.x) {
      current[i] = transform(current[i], t);
    }
    cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);
    __syncthreads();
    if (issuer) {
      cuda::ptx::cp_async_bulk(cuda::ptx::space_global, cuda::ptx::space_shared, out + t * words, current,
                               tile_bytes());
      cuda::ptx::cp_async_bulk_commit_group();
      cuda::ptx::cp_async_bulk_wait_group_read(cuda::ptx::n32_t<0>{});
    }
    __syncthreads();
    refill = current;
  }
}

extern "C" __global__ void umsync_async_two_stage(std::uint32_t const* in, std::uint32_t* out, unsigned tiles)
{
  __shared__ umsync::transaction_barrier_storage<umsync::barrier_scope::block> full[2];
  __shared__ umsync::shared_tile<std::uint32_t, words> stage[2];
  auto [bars, phases] = umsync::init_barriers(full, 1).publish();
  bool const issuer = threadIdx.x == 0;
  if (issuer) {
    umsync::bulk_fill(bars[0]).load(stage[0].first_use(), in).arrive();
  }
  auto refill = stage[1].first_use();
  unsigned s = 0;
  for (unsigned t = 0; t < tiles; ++t, s ^= 1U) {
    if (issuer && t + 1 < tiles) {
      umsync::bulk_fill(bars[s ^ 1U]).load(std::move(refill), in + (t + 1) * words).arrive();
    }
    auto data = bars.wait(s, phases, stage[s]).write();
    for (unsigned i = threadIdx.x; i < words; i += blockDim.x) {
      data[i] = transform(data[i], t);
    }
    auto token = umsync::bulk_store(out + t * words, std::move(data).publish_to_async(), issuer);
    refill = std::move(token).wait();
  }
}

// Clusters: a cluster-scope barrier published by a cluster barrier, completed by the local
// fill and the peer's remote arrival, then a closing cluster barrier.
extern "C" __global__ void raw_cluster_async_remote(std::uint32_t const* in, std::uint32_t* out)
{
  __shared__ std::uint64_t bar;
  __shared__ alignas(128) std::uint32_t tile[words];
  if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0) {
    cuda::ptx::mbarrier_init(&bar, 2);
    cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster);
  }
  cuda::ptx::barrier_cluster_arrive(cuda::ptx::sem_release);
  cuda::ptx::barrier_cluster_wait(cuda::ptx::sem_acquire);
  if (threadIdx.x == 0) {
    cuda::ptx::cp_async_bulk(cuda::ptx::space_shared, cuda::ptx::space_global, tile, in + blockIdx.x * words,
                             tile_bytes(), &bar);
    static_cast<void>(cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cluster,
                                                           cuda::ptx::space_shared, &bar, tile_bytes()));
    void* const remote = __cluster_map_shared_rank(&bar, cuda::ptx::get_sreg_cluster_ctarank() ^ 1U);
    cuda::ptx::mbarrier_arrive(cuda::ptx::sem_release, cuda::ptx::scope_cluster, cuda::ptx::space_cluster,
                               static_cast<std::uint64_t*>(remote));
  }
  while (!cuda::ptx::mbarrier_try_wait_parity(cuda::ptx::sem_acquire, cuda::ptx::scope_cluster, &bar, 0U)) {
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = tile[threadIdx.x];
  cuda::ptx::barrier_cluster_arrive(cuda::ptx::sem_release);
  cuda::ptx::barrier_cluster_wait(cuda::ptx::sem_acquire);
}

extern "C" __global__ void umsync_cluster_async_remote(std::uint32_t const* in, std::uint32_t* out)
{
  __shared__ umsync::transaction_barrier_storage<umsync::barrier_scope::cluster> full;
  __shared__ umsync::shared_tile<std::uint32_t, words> tile;
  auto [bar, phase] = umsync::init_barriers(full, 2).publish();
  if (threadIdx.x == 0) {
    umsync::bulk_fill(bar).load(tile.first_use(), in + blockIdx.x * words).arrive();
    bar.arrive_remote(umsync::cluster::block_rank() ^ 1U);
  }
  auto data = bar.wait(phase, tile).read();
  out[blockIdx.x * blockDim.x + threadIdx.x] = data[threadIdx.x];
  static_cast<void>(umsync::cluster::sync());
}
