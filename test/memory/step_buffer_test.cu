// GPU tests of umsync/memory/step_buffer.hpp: the same step, written once, runs with the
// managed and the device_only policy and gives the same random results; each policy's
// to_device / to_host does what it says (prefetch location, or separate device memory).
// 8 MiB of managed memory at most.
#include "support/gpu_test.hpp"

#include <umsync/device.hpp>
#include <umsync/launch.hpp>
#include <umsync/memory/step_buffer.hpp>
#include <umsync/stream.hpp>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

namespace {
using u32 = std::uint32_t;
constexpr umsync::launch_config grid{.grid = 132, .block = 256};

__global__ void combine(u32 const* x, u32* y, std::size_t n, u32 key)
{
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
    y[i] = (x[i] * 2654435761U) ^ y[i] ^ key;
  }
}

void warm_up_step_buffer()
{
  static bool const done = [] {
    umsync::stream<> const s;
    {
      umsync::step_buffer<u32, umsync::managed> u(1 << 16);
      umsync::step_buffer<u32, umsync::device_only> d(1 << 16);
      u.host()[0] = 1;
      d.host()[0] = 1;
      u.to_device(s);
      d.to_device(s);
      umsync::launch(s, grid, combine, u.device(), d.device(), std::size_t{1} << 16, u32{0});
      u.to_host(s);
      d.to_host(s);
      s.synchronize();
    }
    UMSYNC_CUDA_CHECK(cudaDeviceSynchronize());
    return true;
  }();
  static_cast<void>(done);
}

/// The step, written once for any policy: fill on the host, move, compute, move back.
template <class Policy>
std::vector<u32> step(std::vector<u32> const& x_in, std::vector<u32> const& y_in, u32 key)
{
  std::size_t const n = x_in.size();
  umsync::stream<> const s;
  umsync::step_buffer<u32, Policy> x(n);
  umsync::step_buffer<u32, Policy> y(n);
  std::copy(x_in.begin(), x_in.end(), x.host().begin());
  std::copy(y_in.begin(), y_in.end(), y.host().begin());
  x.to_device(s);
  y.to_device(s);
  umsync::launch(s, grid, combine, x.device(), y.device(), n, key);
  y.to_host(s);
  s.synchronize();
  return {y.host().begin(), y.host().end()};
}

}  // namespace

static_assert(std::is_same_v<decltype(std::declval<umsync::step_buffer<float, umsync::managed>&>().device()),
                             umsync::managed_span<float>>);
static_assert(std::is_same_v<decltype(std::declval<umsync::step_buffer<float, umsync::device_only>&>().device()),
                             umsync::device_span<float>>);
static_assert(std::is_same_v<decltype(std::declval<umsync::step_buffer<float, umsync::managed> const&>().device()),
                             umsync::managed_span<float const>>);

TEST_CASE("one step, two policies: managed and device_only give the same random results")
{
  warm_up_step_buffer();
  umsync_test::memory_baseline const baseline;
  auto rng = umsync_test::make_rng();
  std::size_t const n = (std::size_t{1} << 20) + rng() % 1000;
  u32 const key = static_cast<u32>(rng());
  std::vector<u32> const x = umsync_test::random_words(rng, n);
  std::vector<u32> const y = umsync_test::random_words(rng, n);
  std::vector<u32> const managed = step<umsync::managed>(x, y, key);
  std::vector<u32> const device_only = step<umsync::device_only>(x, y, key);
  std::size_t wrong_managed = 0;
  std::size_t wrong_device_only = 0;
  for (std::size_t i = 0; i < n; ++i) {
    u32 const expected = (x[i] * 2654435761U) ^ y[i] ^ key;
    wrong_managed += managed[i] != expected ? 1 : 0;
    wrong_device_only += device_only[i] != expected ? 1 : 0;
  }
  CHECK(wrong_managed == 0);
  CHECK(wrong_device_only == 0);
}

TEST_CASE("managed: host and device views are the same managed pages, moved by prefetch")
{
  warm_up_step_buffer();
  umsync_test::memory_baseline const baseline;
  int const device = umsync::current_device();
  umsync::stream<> const s;
  umsync::step_buffer<u32, umsync::managed> b(std::size_t{1} << 18);
  CHECK(b.host().data() == b.device().data());
  CHECK(b.device_ordinal() == device);
  cudaPointerAttributes attributes{};
  UMSYNC_CUDA_CHECK(cudaPointerGetAttributes(&attributes, b.device().data()));
  CHECK(attributes.type == cudaMemoryTypeManaged);
  if (!umsync::capabilities(device).concurrent_managed_access) {
    MESSAGE("no concurrent managed access: to_device and to_host queue nothing");
    return;
  }
  b.to_device(s);
  s.synchronize();
  CHECK(b.allocation().last_prefetch_location() == std::optional{umsync::managed_location::device(device)});
  b.to_host(s);
  s.synchronize();
  REQUIRE(b.allocation().last_prefetch_location().has_value());
  CHECK(b.allocation().last_prefetch_location()->is_host());
}

TEST_CASE("device_only: device memory and pinned staging are separate; moves are copies")
{
  warm_up_step_buffer();
  umsync_test::memory_baseline const baseline;
  auto rng = umsync_test::make_rng();
  umsync::stream<> const s;
  std::size_t const n = (std::size_t{1} << 16) + rng() % 100;
  umsync::step_buffer<u32, umsync::device_only> b(n);
  CHECK(static_cast<void const*>(b.host().data()) != static_cast<void const*>(b.device().data()));
  cudaPointerAttributes device_attributes{};
  cudaPointerAttributes host_attributes{};
  UMSYNC_CUDA_CHECK(cudaPointerGetAttributes(&device_attributes, b.device().data()));
  UMSYNC_CUDA_CHECK(cudaPointerGetAttributes(&host_attributes, b.host().data()));
  CHECK(device_attributes.type == cudaMemoryTypeDevice);
  CHECK(host_attributes.type == cudaMemoryTypeHost);
  std::vector<u32> const data = umsync_test::random_words(rng, n);
  std::copy(data.begin(), data.end(), b.host().begin());
  b.to_device(s);
  s.synchronize();
  // Poison the host side: to_host must bring the device's copy back.
  std::fill(b.host().begin(), b.host().end(), 0xDEADBEEFU);
  b.to_host(s);
  s.synchronize();
  CHECK(std::equal(data.begin(), data.end(), b.host().begin()));
}

TEST_CASE("size 0 works for both policies")
{
  warm_up_step_buffer();
  umsync_test::memory_baseline const baseline;
  umsync::stream<> const s;
  umsync::step_buffer<u32, umsync::managed> u(0);
  umsync::step_buffer<u32, umsync::device_only> d(0);
  CHECK(u.size() == 0);
  CHECK(d.size() == 0);
  CHECK_NOTHROW(u.to_device(s));
  CHECK_NOTHROW(d.to_device(s));
  CHECK_NOTHROW(d.to_host(s));
  s.synchronize();
}
