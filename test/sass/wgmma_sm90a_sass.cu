// Pairs of kernels for scripts/ci/sass-check.sh, built for sm_90a (the file name says so): one
// warpgroup's K loop of bf16 wgmma (m64n128k16, four a 64-wide K tile) over a two-stage ring of
// A and B boxes that 128-byte-swizzled tensor maps load on one barrier phase each, one group kept
// in flight (wait_group 1) before the older stage is released and refilled; the accumulator then
// written out through its fragment layout. umsync_wgmma_ring uses wgmma.hpp, stage_tiles.hpp and
// bulk_copy.hpp; raw_wgmma_ring is the same kernel with cuda::ptx and the same wgmma instruction
// wrappers (detail/ptx_wgmma.hpp), every ordering step written by hand. Identical SASS required.
#include <umsync/sync/wgmma.hpp>

#include <cuda/ptx>
#include <cuda_bf16.h>

#include <cstddef>
#include <cstdint>

namespace {

using element = __nv_bfloat16;
constexpr std::size_t n = 128;
using a_map = umsync::tensor_map<element const, umsync::box<64, 64>, umsync::tensor_swizzle::bytes_128>;
using b_map = umsync::tensor_map<element const, umsync::box<64, n>, umsync::tensor_swizzle::bytes_128>;

struct typed_ring {
  a_map::shared_tile_type a[2];
  b_map::shared_tile_type b[2];
};
struct raw_ring {
  alignas(1024) element a[2][64 * 64];
  alignas(1024) element b[2][64 * n];
};

__device__ constexpr std::uint32_t stage_bytes() { return a_map::box_bytes + b_map::box_bytes; }

__device__ __forceinline__ void raw_wait(std::uint64_t* bar, std::uint32_t parity)
{
  while (!cuda::ptx::mbarrier_try_wait_parity(cuda::ptx::sem_acquire, cuda::ptx::scope_cta, bar, parity)) {
  }
}

__device__ __forceinline__ void raw_fill(a_map const& am, b_map const& bm, element* a, element* b, std::uint64_t* bar,
                                         int k)
{
  std::int32_t const at[2] = {k * 64, 0};
  cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_cluster, cuda::ptx::space_global, a, am.address(), at, bar);
  cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_cluster, cuda::ptx::space_global, b, bm.address(), at, bar);
  static_cast<void>(cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta,
                                                         cuda::ptx::space_shared, bar, stage_bytes()));
}

__device__ __forceinline__ void raw_multiply(float (&d)[n / 2], element const* a, element const* b)
{
  std::uint64_t const a_descriptor = umsync::detail::wgmma_descriptor(a);
  std::uint64_t const b_descriptor = umsync::detail::wgmma_descriptor(b);
  for (auto& value : d) {
    umsync::detail::wgmma_fence_operand(value);
  }
  umsync::detail::wgmma_fence();
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    umsync::detail::wgmma_m64k16<n, umsync::detail::wgmma_input::bf16>::issue(d, a_descriptor + 2U * unsigned(k),
                                                                              b_descriptor + 2U * unsigned(k), 1);
  }
  umsync::detail::wgmma_commit_group();
  for (auto& value : d) {
    umsync::detail::wgmma_fence_operand(value);
  }
}

}  // namespace

extern "C" __global__ void __launch_bounds__(128)
    raw_wgmma_ring(a_map const __grid_constant__ am, b_map const __grid_constant__ bm, int k_tiles, float* out)
{
  extern __shared__ unsigned char dynamic[];
  auto& ring = *reinterpret_cast<raw_ring*>((reinterpret_cast<std::uintptr_t>(dynamic) + 1023U) &
                                            ~std::uintptr_t(1023U));
  __shared__ std::uint64_t full[2];
  if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0) {
    cuda::ptx::mbarrier_init(&full[0], 1);
    cuda::ptx::mbarrier_init(&full[1], 1);
    cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster);
  }
  __syncthreads();
  bool const issuer = threadIdx.x == 0;
  if (issuer) {
    for (int k = 0; k < 2 && k < k_tiles; ++k) {
      raw_fill(am, bm, ring.a[k], ring.b[k], &full[k], k);
    }
  }
  float d[n / 2];
  for (auto& value : d) {
    value = 0.0F;
  }
  // The tiles of the group in flight, carried to the next iteration (as the typed kernel carries
  // its group's views), released and refilled once the next group is issued.
  std::uint32_t parities = 0;
  raw_wait(&full[0], parities & 1U);
  parities ^= 1U;
  element* previous_a = ring.a[0];
  element* previous_b = ring.b[0];
  raw_multiply(d, previous_a, previous_b);
  for (int k = 1; k < k_tiles; ++k) {
    unsigned const s = unsigned(k) & 1U;
    raw_wait(&full[s], (parities >> s) & 1U);
    parities ^= 1U << s;
    element* const a = ring.a[s];
    element* const b = ring.b[s];
    raw_multiply(d, a, b);
    umsync::detail::wgmma_wait_group<1>();
    cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);
    __syncthreads();
    if (issuer && k + 1 < k_tiles) {
      raw_fill(am, bm, previous_a, previous_b, &full[s ^ 1U], k + 1);
    }
    previous_a = a;
    previous_b = b;
  }
  umsync::detail::wgmma_wait_group<0>();
  cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);
  __syncthreads();
  umsync::detail::wgmma_wait_group<0>();
  for (auto& value : d) {
    umsync::detail::wgmma_fence_operand(value);
  }
  unsigned const lane = threadIdx.x % 32U;
  for (std::size_t i = 0; i < n / 2; ++i) {
    unsigned const row = 16U * (threadIdx.x / 32U % 4U) + lane / 4U + 8U * unsigned(i / 2 % 2);
    unsigned const column = 8U * unsigned(i / 4) + 2U * (threadIdx.x % 4U) + unsigned(i % 2);
    out[std::size_t(row) * n + column] = d[i];
  }
}

extern "C" __global__ void __launch_bounds__(128)
    umsync_wgmma_ring(a_map const __grid_constant__ am, b_map const __grid_constant__ bm, int k_tiles, float* out)
{
  extern __shared__ unsigned char dynamic[];
  auto& ring = *reinterpret_cast<typed_ring*>((reinterpret_cast<std::uintptr_t>(dynamic) + 1023U) &
                                              ~std::uintptr_t(1023U));
  __shared__ umsync::transaction_barrier_storage<umsync::barrier_scope::block> full[2];
  auto [bars, phases] = umsync::init_barriers(full, 1).publish();
  bool const issuer = threadIdx.x == 0;
  if (issuer) {
    for (int k = 0; k < 2 && k < k_tiles; ++k) {
      umsync::bulk_fill(bars[k])
          .load(ring.a[k].first_use(), am.box_at(k * 64, 0))
          .load(ring.b[k].first_use(), bm.box_at(k * 64, 0))
          .arrive();
    }
  }
  umsync::wgmma_accumulator<n> zeros;
  auto mma = umsync::start_wgmma(std::move(zeros));
  auto [a0, b0] = bars.wait(0, phases, ring.a[0], ring.b[0]);
  auto previous = mma.multiply(std::move(a0), std::move(b0));
  for (int k = 1; k < k_tiles; ++k) {
    unsigned const s = unsigned(k) & 1U;
    auto [a, b] = bars.wait(s, phases, ring.a[s], ring.b[s]);
    auto group = mma.multiply(std::move(a), std::move(b));
    auto [a_done, b_done] = std::move(previous).wait<1>(mma);
    auto [a_empty, b_empty] = umsync::release_stage(umsync::whole_block{}, std::move(a_done), std::move(b_done));
    if (issuer && k + 1 < k_tiles) {
      umsync::bulk_fill(bars[s ^ 1U])
          .load(std::move(a_empty), am.box_at((k + 1) * 64, 0))
          .load(std::move(b_empty), bm.box_at((k + 1) * 64, 0))
          .arrive();
    }
    previous = std::move(group);
  }
  auto [a_last, b_last] = std::move(previous).wait<0>(mma);
  static_cast<void>(umsync::release_stage(umsync::whole_block{}, std::move(a_last), std::move(b_last)));
  auto const result = std::move(mma).drain();
  for (std::size_t i = 0; i < result.size; ++i) {
    out[std::size_t(result.row(i)) * n + result.column(i)] = result[i];
  }
}
