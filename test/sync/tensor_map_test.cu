// GPU tests of sync/tensor_map.hpp with sync/bulk_copy.hpp: boxes of 2-D tensors loaded into
// typed tiles (no swizzle and 128-byte swizzle; inside the tensor, across its edges and at
// negative coordinates, where TMA fills zeros), read back through the tile's element index and
// compared with the host's own box; a stage of two boxes of different maps on one barrier
// (one arrive, the sum of both boxes' bytes); tensor stores of a written tile, clipped at the
// tensor's edge, into poisoned memory. Host-side: encode() refuses what the driver would.
#include "support/device_trap.hpp"
#include "support/device_words.hpp"
#include "support/gpu_test.hpp"

#include <umsync/sync/bulk_copy.hpp>

#include <cstdint>
#include <cstring>
#include <random>
#include <type_traits>
#include <utility>
#include <vector>

namespace {

using umsync::barrier_scope;
using umsync::tensor_swizzle;
using umsync_test::device_words;

using word_map = umsync::tensor_map<std::uint32_t const, umsync::box<16, 8>>;
using half_map = umsync::tensor_map<std::uint16_t const, umsync::box<64, 16>, tensor_swizzle::bytes_128>;
using half_map_64 = umsync::tensor_map<std::uint16_t const, umsync::box<32, 8>, tensor_swizzle::bytes_64>;
using store_map = umsync::tensor_map<std::uint16_t, umsync::box<64, 16>, tensor_swizzle::bytes_128>;

// A width x height tensor of `T` (first dimension contiguous, rows `pitch` elements apart) in
// device memory, filled from `rng`.
template <class T>
struct tensor_2d {
  int width;
  int height;
  int pitch;
  std::vector<T> host;
  device_words device;

  tensor_2d(int w, int h, int p, std::mt19937_64& rng)
      : width(w),
        height(h),
        pitch(p),
        host(std::size_t(p) * h),
        device((std::size_t(p) * h * sizeof(T) + 3) / sizeof(std::uint32_t))
  {
    for (auto& value : host) {
      value = static_cast<T>(rng());
    }
    UMSYNC_CUDA_CHECK(cudaMemcpy(device.get(), host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
  }
  [[nodiscard]] T* data() const noexcept { return reinterpret_cast<T*>(device.get()); }
  /// The element at (x, y), or 0 past the tensor's edge (what TMA fills in).
  [[nodiscard]] T at(int x, int y) const noexcept
  {
    return x < 0 || y < 0 || x >= width || y >= height ? T(0) : host[std::size_t(y) * pitch + x];
  }
};

// Loads the box at (x, y) and writes it out twice: by the tile's element index (`logical`) and
// as it lies in shared memory (`stored`).
template <class Map>
__global__ void load_box(Map const __grid_constant__ map, int x, int y, typename Map::element_type* logical,
                         typename Map::element_type* stored)
{
  __shared__ typename Map::shared_tile_type tile;
  __shared__ umsync::transaction_barrier_storage<barrier_scope::block> full[2];
  auto [bars, phases] = umsync::init_barriers(full, 1).publish();
  if (threadIdx.x == 0) {
    map.prefetch();
    umsync::bulk_fill(bars[0]).load(tile.first_use(), map.box_at(x, y)).arrive();
  }
  auto view = bars.wait(0, phases, tile).read();
  for (unsigned i = threadIdx.x; i < Map::shared_tile_type::size; i += blockDim.x) {
    logical[i] = view[i];
    stored[i] = view.data()[i];
  }
  static_cast<void>(std::move(view).release());
}

template <class Map>
std::size_t wrong_in_box(tensor_2d<typename Map::element_type> const& tensor, int x, int y, bool& permuted)
{
  using T = typename Map::element_type;
  constexpr std::size_t n = Map::shared_tile_type::size;
  constexpr int box_width = int(Map::box_type::extents[0]);
  device_words logical((n * sizeof(T) + 3) / 4);
  device_words stored((n * sizeof(T) + 3) / 4);
  logical.poison();
  stored.poison();
  auto const map = Map::encode(tensor.data(), {std::uint64_t(tensor.width), std::uint64_t(tensor.height)},
                               {std::uint64_t(tensor.pitch)});
  load_box<Map><<<1, 128>>>(map, x, y, reinterpret_cast<T*>(logical.get()), reinterpret_cast<T*>(stored.get()));
  umsync_test::check_launch("load_box");
  UMSYNC_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<std::uint32_t> const logical_words = logical.download();
  std::vector<std::uint32_t> const stored_words = stored.download();
  std::vector<T> got(n);
  std::vector<T> raw(n);
  std::memcpy(got.data(), logical_words.data(), n * sizeof(T));
  std::memcpy(raw.data(), stored_words.data(), n * sizeof(T));
  std::size_t wrong = 0;
  permuted = false;
  for (std::size_t i = 0; i < n; ++i) {
    T const expected = tensor.at(x + int(i % box_width), y + int(i / box_width));
    wrong += got[i] != expected ? 1U : 0U;
    permuted = permuted || raw[i] != got[i];
  }
  return wrong;
}

// One stage of two boxes of different maps, filled by one fill (one arrive), waited once.
__global__ void load_two_boxes(word_map const __grid_constant__ words, half_map const __grid_constant__ halves, int x,
                               int y, std::uint32_t* words_out, std::uint16_t* halves_out)
{
  __shared__ word_map::shared_tile_type a;
  __shared__ half_map::shared_tile_type b;
  __shared__ umsync::transaction_barrier_storage<barrier_scope::block> full[2];
  auto [bars, phases] = umsync::init_barriers(full, 1).publish();
  if (threadIdx.x == 0) {
    auto fill =
        umsync::bulk_fill(bars[0]).load(a.first_use(), words.box_at(x, y)).load(b.first_use(), halves.box_at(x, y));
    static_assert(
        std::is_same_v<decltype(fill),
                       umsync::bulk_fill<barrier_scope::block, word_map::box_bytes + half_map::box_bytes, false>>);
    std::move(fill).arrive();
  }
  auto [a_loaded, b_loaded] = bars.wait(0, phases, a, b);
  auto a_view = std::move(a_loaded).read();
  auto b_view = std::move(b_loaded).read();
  for (unsigned i = threadIdx.x; i < word_map::shared_tile_type::size; i += blockDim.x) {
    words_out[i] = a_view[i];
  }
  for (unsigned i = threadIdx.x; i < half_map::shared_tile_type::size; i += blockDim.x) {
    halves_out[i] = b_view[i];
  }
}

// Writes value(i) = seed + 3 i to element i of a swizzled tile and stores the box at (x, y).
__global__ void store_box(store_map const __grid_constant__ map, int x, int y, std::uint16_t seed)
{
  __shared__ store_map::shared_tile_type tile;
  auto data = tile.first_use().write();
  for (unsigned i = threadIdx.x; i < store_map::shared_tile_type::size; i += blockDim.x) {
    data[i] = static_cast<std::uint16_t>(seed + 3U * i);
  }
  auto token = umsync::tensor_store(map.box_at(x, y), std::move(data).publish_to_async(), threadIdx.x == 0);
  static_cast<void>(std::move(token).wait());
}

}  // namespace

TEST_CASE("tensor loads fill the map's tile with the box, unswizzled by the tile's index, zeros past the edges")
{
  if (!umsync_test::device_is_sm90()) {
    MESSAGE("tensor copies need compute capability 9.0 or newer");
    return;
  }
  umsync_test::memory_baseline const baseline;
  auto rng = umsync_test::make_rng();
  tensor_2d<std::uint32_t> const words(100, 37, 108, rng);
  tensor_2d<std::uint16_t> const halves(300, 45, 312, rng);
  bool permuted = false;
  // Inside, across the right and bottom edges, at negative coordinates; the first coordinate a
  // multiple of 16 bytes (TMA's rule for a box's start).
  for (auto const& [x, y] : {std::pair{0, 0}, std::pair{24, 9}, std::pair{88, 33}, std::pair{-8, -3}}) {
    CAPTURE(x);
    CAPTURE(y);
    CHECK(wrong_in_box<word_map>(words, x, y, permuted) == 0);
    CHECK_FALSE(permuted);  // no swizzle: stored in order
  }
  for (auto const& [x, y] : {std::pair{0, 0}, std::pair{24, 9}, std::pair{264, 33}, std::pair{-8, -3}}) {
    CAPTURE(x);
    CAPTURE(y);
    CHECK(wrong_in_box<half_map>(halves, x, y, permuted) == 0);
    CHECK(permuted);  // 128-byte swizzle: the stored order differs, the index hides it
    CHECK(wrong_in_box<half_map_64>(halves, x + 16, y, permuted) == 0);
    CHECK(permuted);
  }
}

TEST_CASE("a stage of two boxes of two maps completes on one arrive expecting both boxes' bytes")
{
  if (!umsync_test::device_is_sm90()) {
    MESSAGE("tensor copies need compute capability 9.0 or newer");
    return;
  }
  umsync_test::memory_baseline const baseline;
  auto rng = umsync_test::make_rng();
  tensor_2d<std::uint32_t> const words(64, 20, 64, rng);
  tensor_2d<std::uint16_t> const halves(128, 20, 128, rng);
  auto const words_map = word_map::encode(words.data(), {64, 20});
  auto const halves_map = half_map::encode(halves.data(), {128, 20});
  device_words words_out(word_map::shared_tile_type::size);
  device_words halves_out(half_map::shared_tile_type::size / 2);
  for (int const x : {0, 40}) {
    words_out.poison();
    halves_out.poison();
    load_two_boxes<<<1, 128>>>(words_map, halves_map, x, 6, words_out.get(),
                               reinterpret_cast<std::uint16_t*>(halves_out.get()));
    umsync_test::check_launch("load_two_boxes");
    UMSYNC_CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<std::uint32_t> const got_words = words_out.download();
    std::vector<std::uint32_t> const got_half_words = halves_out.download();
    std::vector<std::uint16_t> got_halves(half_map::shared_tile_type::size);
    std::memcpy(got_halves.data(), got_half_words.data(), got_halves.size() * 2);
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < got_words.size(); ++i) {
      wrong += got_words[i] != words.at(x + int(i % 16), 6 + int(i / 16)) ? 1U : 0U;
    }
    for (std::size_t i = 0; i < got_halves.size(); ++i) {
      wrong += got_halves[i] != halves.at(x + int(i % 64), 6 + int(i / 64)) ? 1U : 0U;
    }
    CAPTURE(x);
    CHECK(wrong == 0);
  }
}

TEST_CASE("a tensor store writes the box's in-bounds part, swizzled tile in logical order, nothing else")
{
  if (!umsync_test::device_is_sm90()) {
    MESSAGE("tensor copies need compute capability 9.0 or newer");
    return;
  }
  umsync_test::memory_baseline const baseline;
  auto rng = umsync_test::make_rng();
  constexpr int width = 152;
  constexpr int height = 40;
  device_words target(width * height / 2);
  auto const map = store_map::encode(reinterpret_cast<std::uint16_t*>(target.get()), {width, height});
  for (auto const& [x, y] : {std::pair{8, 4}, std::pair{120, 30}, std::pair{0, 24}}) {
    CAPTURE(x);
    CAPTURE(y);
    auto const seed = static_cast<std::uint16_t>(rng());
    target.poison();
    store_box<<<1, 128>>>(map, x, y, seed);
    umsync_test::check_launch("store_box");
    UMSYNC_CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<std::uint32_t> const words = target.download();
    std::vector<std::uint16_t> got(std::size_t(width) * height);
    std::memcpy(got.data(), words.data(), got.size() * 2);
    std::size_t wrong = 0;
    std::size_t written = 0;
    for (int row = 0; row < height; ++row) {
      for (int col = 0; col < width; ++col) {
        int const bx = col - x;
        int const by = row - y;
        bool const inside = bx >= 0 && bx < 64 && by >= 0 && by < 16;
        auto const expected = inside ? static_cast<std::uint16_t>(seed + 3U * unsigned(by * 64 + bx))
                                     : std::uint16_t(0xA5A5);
        wrong += got[std::size_t(row) * width + col] != expected ? 1U : 0U;
        written += inside ? 1U : 0U;
      }
    }
    CHECK(written > 0);
    CHECK(wrong == 0);
  }
}

TEST_CASE("encode() refuses what cuTensorMapEncodeTiled would, with the rule, before calling the driver")
{
  umsync_test::memory_baseline const baseline;
  device_words memory(1024);
  auto* const base = memory.get();
  // An address that is not 16-byte aligned.
  CHECK_THROWS_AS(word_map::encode(base + 1, {64, 8}), umsync::invalid_argument);
  CHECK_THROWS_WITH(word_map::encode(nullptr, {64, 8}), doctest::Contains("is not 16-byte aligned"));
  // An extent of zero.
  CHECK_THROWS_WITH(word_map::encode(base, {0, 8}), doctest::Contains("each extent is 1 to 2^32 elements"));
  // A row stride that is not a multiple of 16 bytes, and one shorter than a row.
  CHECK_THROWS_WITH(word_map::encode(base, {60, 8}, {61}), doctest::Contains("a multiple of 16 bytes"));
  CHECK_THROWS_WITH(word_map::encode(base, {64, 8}, {32}), doctest::Contains("rows would overlap"));
  // A good map still encodes after the refusals.
  CHECK_NOTHROW(static_cast<void>(word_map::encode(base, {64, 8}, {64})));
}
