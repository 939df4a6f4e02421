// GPU tests of the UMSYNC_DEBUG checks of sync/tensor_map.hpp: a tensor map passed by value
// without __grid_constant__ (the kernel then reads a copy of it in local memory, which TMA cannot
// read), a box whose first coordinate is not a multiple of 16 bytes, and a tensor store at a
// negative coordinate each trap naming the rule; the same kernel with the parameter
// `const __grid_constant__` loads the box exactly. The traps run in child processes.
#include "support/child_process.hpp"
#include "support/device_trap.hpp"
#include "support/device_words.hpp"
#include "support/gpu_test.hpp"

#include <umsync/sync/bulk_copy.hpp>

#include <cstdint>
#include <vector>

static_assert(umsync::debug_build, "this file is built with UMSYNC_DEBUG");

namespace {

using map = umsync::tensor_map<std::uint32_t const, umsync::box<32, 4>>;
constexpr int width = 64;
constexpr int height = 8;

using store_map = umsync::tensor_map<std::uint32_t, umsync::box<32, 4>>;

__device__ void load_and_copy(map const& source, std::uint32_t* out, int x = 32)
{
  __shared__ map::shared_tile_type tile;
  __shared__ umsync::transaction_barrier_storage<umsync::barrier_scope::block> full[2];
  auto [bars, phases] = umsync::init_barriers(full, 1).publish();
  if (threadIdx.x == 0) {
    umsync::bulk_fill(bars[0]).load(tile.first_use(), source.box_at(x, 4)).arrive();
  }
  auto view = bars.wait(0, phases, tile).read();
  for (unsigned i = threadIdx.x; i < map::shared_tile_type::size; i += blockDim.x) {
    out[i] = view[i];
  }
}

__global__ void from_grid_constant(map const __grid_constant__ source, std::uint32_t* out)
{
  load_and_copy(source, out);
}

// NOLINTNEXTLINE(performance-unnecessary-value-param): the mistake under test
__global__ void from_local_copy(map source, std::uint32_t* out) { load_and_copy(source, out); }

// A box placed 2 elements (8 bytes) into its row.
__global__ void from_unaligned_start(map const __grid_constant__ source, std::uint32_t* out)
{
  load_and_copy(source, out, 34);
}

// A box stored at (-4, 0).
__global__ void store_before_start(store_map const __grid_constant__ target)
{
  __shared__ store_map::shared_tile_type tile;
  auto data = tile.first_use().write();
  data[threadIdx.x] = threadIdx.x;
  auto token = umsync::tensor_store(target.box_at(-4, 0), std::move(data).publish_to_async(), threadIdx.x == 0);
  static_cast<void>(std::move(token).wait());
}

}  // namespace

TEST_CASE("debug builds: a tensor map read from a __grid_constant__ parameter loads its box without a trap")
{
  if (!umsync_test::device_is_sm90()) {
    MESSAGE("tensor copies need compute capability 9.0 or newer");
    return;
  }
  umsync_test::memory_baseline const baseline;
  auto rng = umsync_test::make_rng();
  std::vector<std::uint32_t> const input = umsync_test::random_words(rng, width * height);
  umsync_test::device_words tensor(input.size());
  umsync_test::device_words out(map::shared_tile_type::size);
  tensor.upload(input);
  out.poison();
  from_grid_constant<<<1, 128>>>(map::encode(tensor.get(), {width, height}), out.get());
  umsync_test::check_launch("from_grid_constant");
  UMSYNC_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<std::uint32_t> const got = out.download();
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    wrong += got[i] != input[(4 + i / 32) * width + 32 + i % 32] ? 1U : 0U;
  }
  CHECK(wrong == 0);
}

TEST_CASE("child process - tensor map parameter without __grid_constant__" * doctest::skip())
{
  umsync_test::device_words tensor(width * height);
  umsync_test::device_words out(map::shared_tile_type::size);
  from_local_copy<<<1, 128>>>(map::encode(tensor.get(), {width, height}), out.get());
  umsync_test::print_child_status();
}

TEST_CASE("a tensor map used from a copy in local memory traps naming __grid_constant__")
{
  umsync_test::expect_child_trap("child process - tensor map parameter without __grid_constant__",
                                 {"umsync: tensor map at", "is a copy in local memory",
                                  "declare the parameter `tensor_map<...> const __grid_constant__`"});
}

TEST_CASE("child process - tensor box at a first coordinate not a multiple of 16 bytes" * doctest::skip())
{
  umsync_test::device_words tensor(width * height);
  umsync_test::device_words out(map::shared_tile_type::size);
  from_unaligned_start<<<1, 128>>>(map::encode(tensor.get(), {width, height}), out.get());
  umsync_test::print_child_status();
}

TEST_CASE("child process - tensor store at a negative coordinate" * doctest::skip())
{
  umsync_test::device_words tensor(width * height);
  store_before_start<<<1, 128>>>(store_map::encode(tensor.get(), {width, height}));
  umsync_test::print_child_status();
}

TEST_CASE("a tensor box whose first coordinate is not a multiple of 16 bytes traps")
{
  umsync_test::expect_child_trap("child process - tensor box at a first coordinate not a multiple of 16 bytes",
                                 {"umsync: a tensor box placed at first coordinate 34",
                                  "starts 136 bytes into its row"});
}

TEST_CASE("a tensor store at a negative coordinate traps")
{
  umsync_test::expect_child_trap("child process - tensor store at a negative coordinate",
                                 {"umsync: a tensor store at a negative coordinate (first -4)"});
}
