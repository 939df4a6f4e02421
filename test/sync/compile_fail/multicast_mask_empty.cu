// Rule: a multicast mask names at least one block.
// expect-error: umsync: a multicast mask names at least one block
// arch: sm_90a
#include <umsync/sync/bulk_copy.hpp>

#include <cstdint>

using half_map = umsync::tensor_map<std::uint32_t const, umsync::box<32, 8>>;

#if defined(UMSYNC_CF_CONTROL)
constexpr auto scope = umsync::barrier_scope::cluster;
using to = umsync::multicast_to<2, 0x3>;
#else
constexpr auto scope = umsync::barrier_scope::cluster;
using to = umsync::multicast_to<2, 0x0>;
#endif

__global__ void __cluster_dims__(2, 1, 1) kernel(half_map const __grid_constant__ map, std::uint32_t* out)
{
  __shared__ umsync::transaction_barrier_storage<scope> full[2];
  __shared__ half_map::shared_tile_type halves[2];
  auto [bars, phases] = umsync::init_barriers(full, 1).publish();
  std::uint32_t const rank = umsync::cluster::block_rank();
  if (threadIdx.x == 0) {
    umsync::bulk_fill(bars[0]).load(halves[rank].first_use(), map.box_at(0, int(rank) * 8), to{}).arrive();
  }
  auto [low, high] = bars.wait(0, phases, halves[0], halves[1]);
  out[threadIdx.x] = std::move(low).read()[threadIdx.x] + std::move(high).read()[threadIdx.x];
  static_cast<void>(umsync::cluster::sync());
}
