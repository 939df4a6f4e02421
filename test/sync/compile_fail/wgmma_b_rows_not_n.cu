// Rule: the B tile of an m64nNk16 MMA has N rows, the accumulator's columns.
// expect-error: umsync: a wgmma B tile has as many rows as the accumulator has columns (N)
// arch: sm_90a
#include <umsync/sync/wgmma.hpp>

#include <cuda_bf16.h>

using a_map = umsync::tensor_map<__nv_bfloat16 const, umsync::box<64, 64>, umsync::tensor_swizzle::bytes_128>;
using b_map = umsync::tensor_map<__nv_bfloat16 const, umsync::box<64, 128>, umsync::tensor_swizzle::bytes_128>;

__global__ void kernel(a_map const __grid_constant__ am, b_map const __grid_constant__ bm, float* out)
{
  __shared__ a_map::shared_tile_type a_tile;
  __shared__ b_map::shared_tile_type b_tile;
  __shared__ umsync::transaction_barrier_storage<umsync::barrier_scope::block> full[2];
  auto [bars, phases] = umsync::init_barriers(full, 1).publish();
  if (threadIdx.x == 0) {
    umsync::bulk_fill(bars[0])
        .load(a_tile.first_use(), am.box_at(0, 0))
        .load(b_tile.first_use(), bm.box_at(0, 0))
        .arrive();
  }
  auto [a, b] = bars.wait(0, phases, a_tile, b_tile);
#if defined(UMSYNC_CF_CONTROL)
  umsync::wgmma_accumulator<128> zeros;
#else
  umsync::wgmma_accumulator<256> zeros;
#endif
  auto mma = umsync::start_wgmma(std::move(zeros));
  auto [a_done, b_done] = mma.multiply(std::move(a), std::move(b)).wait<0>(mma);
  static_cast<void>(umsync::release_stage(umsync::whole_block{}, std::move(a_done), std::move(b_done)));
  auto const result = std::move(mma).drain();
  out[threadIdx.x] = result[0];
}
