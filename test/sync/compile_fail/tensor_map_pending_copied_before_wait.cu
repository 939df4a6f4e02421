// Rule: a tensor map that earlier grids' writes may still reach (pending<tensor_map<...>>) is
// copied through only after griddepcontrol.wait: NVIDIA/cutlass #2760 issued its TMA loads first.
// expect-error: umsync: a pending tensor map of a dependent kernel is copied through before the wait; earlier grids may still write its tensor (NVIDIA/cutlass #2760): use after(umsync::wait_for_prerequisite_grids()).box_at(...)
#include <umsync/sync/bulk_copy.hpp>

#include <cstdint>

using map = umsync::tensor_map<std::uint32_t const, umsync::box<32, 8>>;

__global__ void kernel(umsync::pending<map> const __grid_constant__ source, std::uint32_t* out)
{
  __shared__ map::shared_tile_type tile;
  __shared__ umsync::transaction_barrier_storage<umsync::barrier_scope::block> full[2];
  auto [bars, phases] = umsync::init_barriers(full, 1).publish();
  if (threadIdx.x == 0) {
#if defined(UMSYNC_CF_CONTROL)
    umsync::prerequisites_complete const done = umsync::wait_for_prerequisite_grids();
    umsync::bulk_fill(bars[0]).load(tile.first_use(), source.after(done).box_at(0, 0)).arrive();
#else
    umsync::bulk_fill(bars[0]).load(tile.first_use(), source.box_at(0, 0)).arrive();
#endif
  }
  auto view = bars.wait(0, phases, tile).read();
  out[threadIdx.x] = view[threadIdx.x];
}
