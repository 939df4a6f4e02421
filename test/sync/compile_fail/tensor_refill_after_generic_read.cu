// Rule: a stage that generic code read is refilled by a tensor load only after release():
// fence.proxy.async in every reader, then a barrier (NVIDIA/TransformerEngine #2695).
// expect-error: umsync: a stage that generic code read or wrote is refilled by a bulk (TMA) copy only after release(): fence.proxy.async.shared::cta in every thread that accessed it, then a barrier
#include <umsync/sync/bulk_copy.hpp>

#include <cstdint>

using map = umsync::tensor_map<std::uint16_t const, umsync::box<64, 32>, umsync::tensor_swizzle::bytes_128>;

__global__ void kernel(map const __grid_constant__ source, std::uint16_t* out)
{
  __shared__ umsync::transaction_barrier_storage<umsync::barrier_scope::block> full[2];
  auto [bars, phases] = umsync::init_barriers(full, 1).publish();
  __shared__ map::shared_tile_type tile;
  if (threadIdx.x == 0) {
    umsync::bulk_fill(bars[0]).load(tile.first_use(), source.box_at(0, 0)).arrive();
  }
  auto view = bars.wait(0, phases, tile).read();
  out[threadIdx.x] = view[threadIdx.x];
#if defined(UMSYNC_CF_CONTROL)
  auto refill = std::move(view).release();
#else
  auto& refill = view;
#endif
  if (threadIdx.x == 0) {
    umsync::bulk_fill(bars[1]).load(std::move(refill), source.box_at(64, 0)).arrive();
  }
}
