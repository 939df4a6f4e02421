// Pairs of kernels for scripts/ci/sass-check.sh, built for sm_90a (the file name says so): a
// cluster of two blocks, each loading its half of a 16 x 32 box pair through a tensor map and
// multicasting it to both (cp.async.bulk.tensor .multicast::cluster), both waiting for the whole
// stage on their cluster-scope barrier (expect_tx of both halves), reading it, and closing with a
// cluster barrier. umsync_cluster_multicast_stage is test/support/multicast_stage.cuh, the body
// bulk_fill_multicast_test.cu runs (multicast_to, bulk_fill, the stage wait);
// raw_cluster_multicast_stage is the same kernel in cuda::ptx. Identical SASS required.
#include "../support/multicast_stage.cuh"

#include <umsync/sync/bulk_copy.hpp>

#include <cuda/ptx>

#include <cstddef>
#include <cstdint>

namespace {

using half_map = umsync_test::multicast_half_map;

__device__ constexpr std::uint32_t stage_bytes() { return 2U * half_map::box_bytes; }

}  // namespace

extern "C" __global__ void __cluster_dims__(2, 1, 1)
    raw_cluster_multicast_stage(half_map const __grid_constant__ map, std::uint32_t* out)
{
  __shared__ std::uint64_t full[2];
  __shared__ alignas(128) std::uint32_t halves[2][32 * 8];
  if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0) {
    cuda::ptx::mbarrier_init(&full[0], 1);
    cuda::ptx::mbarrier_init(&full[1], 1);
    cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster);
  }
  cuda::ptx::barrier_cluster_arrive(cuda::ptx::sem_release);
  cuda::ptx::barrier_cluster_wait(cuda::ptx::sem_acquire);
  std::uint32_t const rank = cuda::ptx::get_sreg_cluster_ctarank();
  int const cluster = int(blockIdx.x / 2U);
  if (threadIdx.x == 0) {
    std::int32_t const at[2] = {0, cluster * 16 + int(rank) * 8};
    cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_cluster, cuda::ptx::space_global, halves[rank], map.address(), at,
                                    &full[0], std::uint16_t(0x3));
    static_cast<void>(cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cluster,
                                                           cuda::ptx::space_shared, &full[0], stage_bytes()));
  }
  while (!cuda::ptx::mbarrier_try_wait_parity(cuda::ptx::sem_acquire, cuda::ptx::scope_cluster, &full[0], 0U)) {
  }
  for (unsigned i = threadIdx.x; i < 2 * 32 * 8; i += blockDim.x) {
    out[std::size_t(blockIdx.x) * 512 + i] = i < 256 ? halves[0][i] : halves[1][i - 256];
  }
  cuda::ptx::barrier_cluster_arrive(cuda::ptx::sem_release);
  cuda::ptx::barrier_cluster_wait(cuda::ptx::sem_acquire);
}

extern "C" __global__ void __cluster_dims__(2, 1, 1)
    umsync_cluster_multicast_stage(half_map const __grid_constant__ map, std::uint32_t* out)
{
  umsync_test::typed_multicast_stage(map, out);
}
