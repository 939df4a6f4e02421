// The typed multicast stage that test/sync/bulk_fill_multicast_test.cu runs and
// test/sass/multicast_sm90a_sass.cu checks against its raw twin (one body, so what is tested is
// what is checked): in a cluster of two, each block loads its half (8 rows) of cluster c's 16 x 32
// stage and multicasts it to both; both wait for the whole stage on their cluster-scope barrier,
// write it to out[block * 512 ...] and close with a cluster barrier. sm_90a.
#pragma once

#include <umsync/sync/bulk_copy.hpp>
#include <umsync/sync/cluster.hpp>

#include <cstddef>
#include <cstdint>
#include <utility>

namespace umsync_test {

using multicast_half_map = umsync::tensor_map<std::uint32_t const, umsync::box<32, 8>>;

__device__ __forceinline__ void typed_multicast_stage(multicast_half_map const& map, std::uint32_t* out)
{
  __shared__ umsync::transaction_barrier_storage<umsync::barrier_scope::cluster> full[2];
  __shared__ multicast_half_map::shared_tile_type halves[2];
  auto [bars, phases] = umsync::init_barriers(full, 1).publish();
  std::uint32_t const rank = umsync::cluster::block_rank();
  int const cluster = int(blockIdx.x / 2U);
  if (threadIdx.x == 0) {
    umsync::bulk_fill(bars[0])
        .load(halves[rank].first_use(), map.box_at(0, cluster * 16 + int(rank) * 8), umsync::multicast_to<2, 0x3>{})
        .arrive();
  }
  auto [low, high] = bars.wait(0, phases, halves[0], halves[1]);
  auto const low_read = std::move(low).read();
  auto const high_read = std::move(high).read();
  for (unsigned i = threadIdx.x; i < 2 * 32 * 8; i += blockDim.x) {
    out[std::size_t(blockIdx.x) * 512 + i] = i < 256 ? low_read[i] : high_read[i - 256];
  }
  static_cast<void>(umsync::cluster::sync());  // no block leaves while a peer's copy may target it
}

}  // namespace umsync_test
