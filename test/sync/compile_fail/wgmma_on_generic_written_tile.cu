// Rule: wgmma reads shared memory through the async proxy: a tile written by generic stores is
// read only after fence.proxy.async and a barrier (publish_to_async()).
// expect-error: umsync: shared memory written by generic code is read by wgmma (the async proxy) only after fence.proxy.async.shared::cta in every writing thread and a barrier: call publish_to_async() on the tile first
// arch: sm_90a
#include <umsync/sync/wgmma.hpp>

#include <cuda_bf16.h>

using a_map = umsync::tensor_map<__nv_bfloat16, umsync::box<64, 64>, umsync::tensor_swizzle::bytes_128>;
using b_map = umsync::tensor_map<__nv_bfloat16 const, umsync::box<64, 128>, umsync::tensor_swizzle::bytes_128>;

__global__ void kernel(b_map const __grid_constant__ bm, float* out)
{
  __shared__ a_map::shared_tile_type a_tile;
  __shared__ b_map::shared_tile_type b_tile;
  __shared__ umsync::transaction_barrier_storage<umsync::barrier_scope::block> full[2];
  auto [bars, phases] = umsync::init_barriers(full, 1).publish();
  if (threadIdx.x == 0) {
    umsync::bulk_fill(bars[0]).load(b_tile.first_use(), bm.box_at(0, 0)).arrive();
  }
  auto a = a_tile.first_use().write();
  for (unsigned i = threadIdx.x; i < 64 * 64; i += blockDim.x) {
    a[i] = __float2bfloat16(1.0F);
  }
  auto b = bars.wait(0, phases, b_tile);
  umsync::wgmma_accumulator<128> zeros;
  auto mma = umsync::start_wgmma(std::move(zeros));
#if defined(UMSYNC_CF_CONTROL)
  auto [a_done, b_done] = mma.multiply(std::move(a).publish_to_async(), std::move(b)).wait<0>(mma);
#else
  auto [a_done, b_done] = mma.multiply(std::move(a), std::move(b)).wait<0>(mma);
#endif
  static_cast<void>(std::move(b_done).release());
  auto const result = std::move(mma).drain();
  out[threadIdx.x] = result[0];
  static_cast<void>(a_done);
}
