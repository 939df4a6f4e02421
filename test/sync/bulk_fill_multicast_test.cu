// GPU tests of multicast tensor loads in sync/bulk_fill.hpp (multicast_to, tensor_map.hpp; sm_90a:
// built into umsync_gpu_sm90a_tests): clusters of two blocks each load their half of a 16-row
// stage through a tensor map and multicast it to both; each block's cluster-scope barrier expects
// both halves (the fill counts the box once per block of the mask), and both blocks read the whole
// stage exactly, over random inputs and poisoned outputs.
#include "support/device_trap.hpp"
#include "support/device_words.hpp"
#include "support/gpu_test.hpp"

#include <umsync/sync/bulk_copy.hpp>
#include <umsync/sync/cluster.hpp>

#include <cstdint>
#include <vector>

namespace {

using half_map = umsync::tensor_map<std::uint32_t const, umsync::box<32, 8>>;
constexpr unsigned clusters = 66;
constexpr unsigned width = 32;
constexpr unsigned height = clusters * 16;

// Block b of cluster c writes rows 16 c .. 16 c + 15 of the tensor, as its stage holds them, to
// out[b * 512 ...].
__global__ void __cluster_dims__(2, 1, 1) multicast_halves(half_map const __grid_constant__ map, std::uint32_t* out)
{
  __shared__ umsync::transaction_barrier_storage<umsync::barrier_scope::cluster> full[2];
  __shared__ half_map::shared_tile_type halves[2];
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

}  // namespace

TEST_CASE("a multicast stage split across a cluster of two arrives whole in both blocks")
{
  if (!umsync_test::device_is_sm90()) {
    MESSAGE("multicast tensor copies need compute capability 9.0 (sm_90a code)");
    return;
  }
  umsync_test::memory_baseline const baseline;
  auto rng = umsync_test::make_rng();
  std::vector<std::uint32_t> const input = umsync_test::random_words(rng, std::size_t(width) * height);
  umsync_test::device_words tensor(input.size());
  umsync_test::device_words out(std::size_t(2) * clusters * 512);
  tensor.upload(input);
  for (int round = 0; round < 3; ++round) {
    out.poison();
    multicast_halves<<<2 * clusters, 128>>>(half_map::encode(tensor.get(), {width, height}), out.get());
    umsync_test::check_launch("multicast_halves");
    UMSYNC_CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<std::uint32_t> const got = out.download();
    std::size_t wrong = 0;
    for (std::size_t block = 0; block < 2 * clusters; ++block) {
      std::size_t const first_row = block / 2 * 16;
      for (std::size_t i = 0; i < 512; ++i) {
        wrong += got[block * 512 + i] != input[(first_row + i / 32) * width + i % 32] ? 1U : 0U;
      }
    }
    CAPTURE(round);
    CHECK(wrong == 0);
  }
}
