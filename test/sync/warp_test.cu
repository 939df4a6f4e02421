// GPU tests of umsync/sync/warp.hpp: syncwarp with compile-time lane masks exchanging through
// shared memory, and warp tiles of every allowed size against a host model.
#include "support/gpu_test.hpp"
#include "support/sync_kernels.cuh"

#include <umsync/sync/warp.hpp>

#include <cstdint>
#include <vector>

namespace {

static_assert(umsync::lanes<0, 16> == 0x0000FFFFU);
static_assert(umsync::lanes<16, 16> == 0xFFFF0000U);
static_assert(umsync::lanes<0, 32> == 0xFFFFFFFFU);
static_assert(umsync::lanes<31, 1> == 0x80000000U);
static_assert(umsync::warp_tile<8>::tiles_per_warp == 4 && umsync::warp_tile<8>::first_tile_mask == 0xFFU);
static_assert(umsync::warp_tile<32>::first_tile_mask == 0xFFFFFFFFU);

// Each half warp syncs on its own mask and reads the value its mirror lane in the same half wrote.
__global__ void half_warp_exchange(std::uint32_t const* in, std::uint32_t* out)
{
  __shared__ std::uint32_t values[256];
  unsigned const lane = threadIdx.x % 32;
  unsigned const half_start = threadIdx.x - lane % 16;
  values[threadIdx.x] = in[blockIdx.x * blockDim.x + threadIdx.x];
  if (lane < 16) {
    umsync::syncwarp<umsync::lanes<0, 16>>();
  } else {
    umsync::syncwarp<umsync::lanes<16, 16>>();
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = values[half_start + 15 - lane % 16];
}

struct tile_result {
  std::uint32_t rank;
  std::uint32_t index;
  std::uint32_t mask;
  std::uint32_t from_rank0;
  std::uint32_t from_last_rank;
  std::uint32_t ballot_odd;
  std::uint32_t all_odd;
  std::uint32_t any_odd;
};

template <unsigned Lanes>
__global__ void tile_operations(std::uint32_t const* in, tile_result* out)
{
  umsync::warp_tile<Lanes> const tile;
  unsigned const i = blockIdx.x * blockDim.x + threadIdx.x;
  std::uint32_t const v = in[i];
  bool const odd = (v & 1U) != 0;
  tile_result r{};
  r.rank = tile.rank();
  r.index = tile.index();
  r.mask = tile.mask();
  r.from_rank0 = tile.shfl(v, 0);
  r.from_last_rank = tile.shfl(v, Lanes - 1);
  r.ballot_odd = tile.ballot(odd);
  r.all_odd = tile.all(odd) ? 1U : 0U;
  r.any_odd = tile.any(odd) ? 1U : 0U;
  tile.sync();
  out[i] = r;
}

template <unsigned Lanes>
void check_tiles(std::vector<std::uint32_t> const& input, umsync_test::sync_buffer<std::uint32_t>& in, unsigned blocks,
                 unsigned threads)
{
  umsync_test::sync_buffer<tile_result> out(input.size(), umsync_test::memory::device);
  out.fill_bytes(0xA5);
  tile_operations<Lanes><<<blocks, threads>>>(in.get(), out.get());
  umsync_test::check_launch("tile_operations");
  UMSYNC_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<tile_result> const result = out.download();
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < input.size(); ++i) {
    unsigned const lane = i % 32;
    unsigned const rank = lane % Lanes;
    unsigned const index = lane / Lanes;
    std::size_t const first = i - rank;
    std::uint32_t ballot = 0;
    for (unsigned r = 0; r < Lanes; ++r) {
      ballot |= (input[first + r] & 1U) << r;
    }
    std::uint32_t const tile_bits = Lanes == 32 ? 0xFFFFFFFFU : (1U << Lanes) - 1U;
    tile_result const& got = result[i];
    bool const ok = got.rank == rank && got.index == index && got.mask == tile_bits << (index * Lanes) &&
                    got.from_rank0 == input[first] && got.from_last_rank == input[first + Lanes - 1] &&
                    got.ballot_odd == ballot && got.all_odd == (ballot == tile_bits ? 1U : 0U) &&
                    got.any_odd == (ballot != 0 ? 1U : 0U);
    wrong += ok ? 0U : 1U;
  }
  CHECK_MESSAGE(wrong == 0, "tile of " << Lanes << " lanes: " << wrong << " lanes wrong");
}

}  // namespace

TEST_CASE("syncwarp with a half-warp mask orders shared memory between the lanes of the mask")
{
  umsync_test::memory_baseline const baseline;
  auto rng = umsync_test::make_rng();
  constexpr unsigned blocks = 20;
  constexpr unsigned threads = 256;
  std::size_t const n = std::size_t(blocks) * threads;
  std::vector<std::uint32_t> const input = umsync_test::random_words(rng, n);
  umsync_test::sync_buffer<std::uint32_t> in(n, umsync_test::memory::device);
  umsync_test::sync_buffer<std::uint32_t> out(n, umsync_test::memory::device);
  in.upload(input);
  out.fill_bytes(0xA5);
  half_warp_exchange<<<blocks, threads>>>(in.get(), out.get());
  umsync_test::check_launch("half_warp_exchange");
  UMSYNC_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<std::uint32_t> const result = out.download();
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < n; ++i) {
    std::size_t const half_start = i - i % 16;
    wrong += result[i] != input[half_start + 15 - i % 16] ? 1U : 0U;
  }
  CHECK(wrong == 0);
}

TEST_CASE("warp tiles of 1, 2, 4, 8, 16 and 32 lanes shuffle, vote and sync within the tile")
{
  umsync_test::memory_baseline const baseline;
  auto rng = umsync_test::make_rng();
  constexpr unsigned blocks = 8;
  constexpr unsigned threads = 128;
  std::vector<std::uint32_t> const input = umsync_test::random_words(rng, std::size_t(blocks) * threads);
  umsync_test::sync_buffer<std::uint32_t> in(input.size(), umsync_test::memory::device);
  in.upload(input);
  check_tiles<1>(input, in, blocks, threads);
  check_tiles<2>(input, in, blocks, threads);
  check_tiles<4>(input, in, blocks, threads);
  check_tiles<8>(input, in, blocks, threads);
  check_tiles<16>(input, in, blocks, threads);
  check_tiles<32>(input, in, blocks, threads);
}
