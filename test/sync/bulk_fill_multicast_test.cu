// GPU tests of multicast tensor loads in sync/bulk_fill.hpp (multicast_to, tensor_map.hpp; sm_90a:
// built into umsync_gpu_sm90a_tests): clusters of two blocks each load their half of a 16-row
// stage through a tensor map and multicast it to both; each block's cluster-scope barrier expects
// both halves (the fill counts the box once per block of the mask), and both blocks read the whole
// stage exactly, over random inputs and poisoned outputs.
#include "support/device_trap.hpp"
#include "support/device_words.hpp"
#include "support/gpu_test.hpp"
#include "support/multicast_stage.cuh"

#include <cstdint>
#include <vector>

namespace {

using half_map = umsync_test::multicast_half_map;
constexpr unsigned clusters = 66;
constexpr unsigned width = 32;
constexpr unsigned height = clusters * 16;

// Block b of cluster c writes rows 16 c .. 16 c + 15 of the tensor, as its stage holds them, to
// out[b * 512 ...] (the body the SASS check compares with its raw twin).
__global__ void __cluster_dims__(2, 1, 1) multicast_halves(half_map const __grid_constant__ map, std::uint32_t* out)
{
  umsync_test::typed_multicast_stage(map, out);
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
