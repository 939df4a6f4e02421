// Pairs of kernels for scripts/ci/sass-check.sh: a two-stage ring of GEMM-shaped stages, each an
// A box (64 x 64 16-bit elements) and a B box (64 x 32) loaded through 128-byte-swizzled tensor
// maps on one barrier phase, read by every thread in logical order, given back together; then a
// tensor store of a written tile. umsync_tensor_stage uses tensor_map, bulk_fill, the stage wait,
// release_stage and tensor_store; raw_tensor_stage is the same kernel in cuda::ptx as a
// hand-written TMA kernel would be. The script requires identical SASS. Not part of any test
// executable.
#include <umsync/sync/bulk_copy.hpp>

#include <cuda/ptx>

#include <cstddef>
#include <cstdint>

namespace {

using element = std::uint16_t;
using a_map = umsync::tensor_map<element const, umsync::box<64, 64>, umsync::tensor_swizzle::bytes_128>;
using b_map = umsync::tensor_map<element const, umsync::box<64, 32>, umsync::tensor_swizzle::bytes_128>;
using d_map = umsync::tensor_map<element, umsync::box<64, 32>, umsync::tensor_swizzle::bytes_128>;

// Prvalues: cuda::ptx takes sizes by reference, which would odr-use a host constant.
__device__ constexpr std::uint32_t stage_bytes() { return a_map::box_bytes + b_map::box_bytes; }

// Element i of a 128-byte-swizzled box whose rows are 128 bytes, by hand.
__device__ __forceinline__ std::size_t swizzled(std::size_t i)
{
  std::size_t const byte = i * sizeof(element);
  return (byte ^ ((byte & 0x380U) >> 3)) / sizeof(element);
}

__device__ __forceinline__ void raw_wait(std::uint64_t* bar, std::uint32_t parity)
{
  while (!cuda::ptx::mbarrier_try_wait_parity(cuda::ptx::sem_acquire, cuda::ptx::scope_cta, bar, parity)) {
  }
}

}  // namespace

extern "C" __global__ void __launch_bounds__(128)
    raw_tensor_stage(a_map const __grid_constant__ am, b_map const __grid_constant__ bm,
                     d_map const __grid_constant__ dm, int k_tiles)
{
  __shared__ alignas(1024) element a[2][64 * 64];
  __shared__ alignas(1024) element b[2][64 * 32];
  __shared__ alignas(1024) element d[64 * 32];
  __shared__ std::uint64_t full[2];
  if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0) {
    cuda::ptx::mbarrier_init(&full[0], 1);
    cuda::ptx::mbarrier_init(&full[1], 1);
    cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster);
  }
  __syncthreads();
  int const m0 = int(blockIdx.x) * 64;
  int const n0 = int(blockIdx.y) * 32;
  std::uint32_t parities = 0;
  if (threadIdx.x == 0) {
    std::int32_t const a_at[2] = {0, m0};
    std::int32_t const b_at[2] = {0, n0};
    cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_cluster, cuda::ptx::space_global, a[0], am.address(), a_at,
                                    &full[0]);
    cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_cluster, cuda::ptx::space_global, b[0], bm.address(), b_at,
                                    &full[0]);
    static_cast<void>(cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta,
                                                           cuda::ptx::space_shared, &full[0], stage_bytes()));
  }
  // The stage to refill next, carried from the last release (as the typed kernel carries its views).
  element* b_refill = b[1];
  element* a_refill = a[1];
  unsigned sum = 0;
  for (int k = 0; k < k_tiles; ++k) {
    unsigned const s = unsigned(k) & 1U;
    if (threadIdx.x == 0 && k + 1 < k_tiles) {
      int const k_next = (k + 1) * 64;
      std::int32_t const a_at[2] = {k_next, m0};
      std::int32_t const b_at[2] = {k_next, n0};
      cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_cluster, cuda::ptx::space_global, a_refill, am.address(), a_at,
                                      &full[s ^ 1U]);
      cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_cluster, cuda::ptx::space_global, b_refill, bm.address(), b_at,
                                      &full[s ^ 1U]);
      static_cast<void>(cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta,
                                                             cuda::ptx::space_shared, &full[s ^ 1U], stage_bytes()));
    }
    raw_wait(&full[s], (parities >> s) & 1U);
    parities ^= 1U << s;
    for (unsigned i = threadIdx.x; i < 64 * 32; i += blockDim.x) {
      sum += unsigned(a[s][swizzled(i)]) * unsigned(b[s][swizzled(i)]);
    }
    cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);
    __syncthreads();
    b_refill = b[s];
    a_refill = a[s];
  }
  for (unsigned i = threadIdx.x; i < 64 * 32; i += blockDim.x) {
    d[swizzled(i)] = static_cast<element>(sum + i);
  }
  cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);
  __syncthreads();
  if (threadIdx.x == 0) {
    std::int32_t const d_at[2] = {n0, m0};
    cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_global, cuda::ptx::space_shared, dm.address(), d_at, d);
    cuda::ptx::cp_async_bulk_commit_group();
    cuda::ptx::cp_async_bulk_wait_group_read(cuda::ptx::n32_t<0>{});
  }
  __syncthreads();
}

extern "C" __global__ void __launch_bounds__(128)
    umsync_tensor_stage(a_map const __grid_constant__ am, b_map const __grid_constant__ bm,
                        d_map const __grid_constant__ dm, int k_tiles)
{
  __shared__ a_map::shared_tile_type a[2];
  __shared__ b_map::shared_tile_type b[2];
  __shared__ d_map::shared_tile_type d;
  __shared__ umsync::transaction_barrier_storage<umsync::barrier_scope::block> full[2];
  auto [bars, phases] = umsync::init_barriers(full, 1).publish();
  int const m0 = int(blockIdx.x) * 64;
  int const n0 = int(blockIdx.y) * 32;
  if (threadIdx.x == 0) {
    umsync::bulk_fill(bars[0])
        .load(a[0].first_use(), am.box_at(0, m0))
        .load(b[0].first_use(), bm.box_at(0, n0))
        .arrive();
  }
  auto a_refill = a[1].first_use();
  auto b_refill = b[1].first_use();
  unsigned sum = 0;
  for (int k = 0; k < k_tiles; ++k) {
    unsigned const s = unsigned(k) & 1U;
    if (threadIdx.x == 0 && k + 1 < k_tiles) {
      int const k_next = (k + 1) * 64;
      umsync::bulk_fill(bars[s ^ 1U])
          .load(std::move(a_refill), am.box_at(k_next, m0))
          .load(std::move(b_refill), bm.box_at(k_next, n0))
          .arrive();
    }
    auto [a_loaded, b_loaded] = bars.wait(s, phases, a[s], b[s]);
    auto a_view = std::move(a_loaded).read();
    auto b_view = std::move(b_loaded).read();
    for (unsigned i = threadIdx.x; i < 64 * 32; i += blockDim.x) {
      sum += unsigned(a_view[i]) * unsigned(b_view[i]);
    }
    auto [a_empty, b_empty] = umsync::release_stage(umsync::whole_block{}, std::move(a_view), std::move(b_view));
    a_refill = std::move(a_empty);
    b_refill = std::move(b_empty);
  }
  auto out = d.first_use().write();
  for (unsigned i = threadIdx.x; i < 64 * 32; i += blockDim.x) {
    out[i] = static_cast<element>(sum + i);
  }
  auto token = umsync::tensor_store(dm.box_at(n0, m0), std::move(out).publish_to_async(), threadIdx.x == 0);
  static_cast<void>(std::move(token).wait());
}
