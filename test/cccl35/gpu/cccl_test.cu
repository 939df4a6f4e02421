// GPU tests of umsync/cccl.hpp: CCCL 3.5's stream, buffer, device pool and launch with umsync's
// streams, pools, buffers and spans, on random data. Built with CCCL 3.5 first only.
#include "support/gpu_test.hpp"

#include <umsync/cccl.hpp>
#include <umsync/launch.hpp>
#include <umsync/memory/copy.hpp>
#include <umsync/memory/memory_pool.hpp>
#include <umsync/memory/pinned_buffer.hpp>
#include <umsync/memory/stream_buffer.hpp>
#include <umsync/stream.hpp>

#include <cuda/launch>

#include <cstdint>
#include <limits>

namespace {
struct compute {};

__global__ void affine(std::uint32_t const* in, std::uint32_t* out, std::size_t n, std::uint32_t a, std::uint32_t b)
{
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
    out[i] = a * in[i] + b;
  }
}

struct affine_spans {
  template <class Config>
  __device__ void operator()(Config, cuda::std::span<std::uint32_t const> in, cuda::std::span<std::uint32_t> out,
                             std::uint32_t a, std::uint32_t b) const
  {
    for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < out.size();
         i += std::size_t(gridDim.x) * blockDim.x) {
      out[i] = a * in[i] + b;
    }
  }
};

std::size_t count_wrong(umsync::pinned_buffer<std::uint32_t> const& in, umsync::pinned_buffer<std::uint32_t> const& out,
                        std::uint32_t a, std::uint32_t b)
{
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < in.size(); ++i) {
    wrong += out[i] != a * in[i] + b ? 1 : 0;
  }
  return wrong;
}

void fill_random(umsync::pinned_buffer<std::uint32_t>& in, umsync::pinned_buffer<std::uint32_t>& out,
                 std::mt19937_64& rng)
{
  for (auto& x : in) {
    x = static_cast<std::uint32_t>(rng());
  }
  for (auto& x : out) {
    x = 0xDEADBEEF;  // poison
  }
}
}  // namespace

TEST_CASE("a cuda::stream adopted, a cuda::device_memory_pool serving stream_buffer, umsync::launch")
{
  umsync_test::memory_baseline const baseline;
  auto rng = umsync_test::make_rng();
  std::size_t const n = (std::size_t{1} << 18) + (rng() % 1000);
  std::uint32_t const a = static_cast<std::uint32_t>(rng()) | 1U;
  std::uint32_t const b = static_cast<std::uint32_t>(rng());
  umsync::pinned_buffer<std::uint32_t> host_in(n);
  umsync::pinned_buffer<std::uint32_t> host_out(n);
  fill_random(host_in, host_out, rng);
  {
    cuda::stream const cccl_stream{cuda::devices[0]};
    cuda::device_memory_pool pool{cuda::devices[0]};
    umsync::stream_view<compute> const s = umsync::adopt_stream<compute>(cccl_stream);
    umsync::stream_buffer<std::uint32_t, compute> in(n, s, pool);
    umsync::stream_buffer<std::uint32_t, compute> out(n, s, pool);
    umsync::copy_async(in, host_in, s);
    umsync::launch(s, {.grid = 132, .block = 256}, affine, in, out, n, a, b);
    umsync::copy_async(host_out, out, s);
    s.synchronize();
  }
  CHECK(count_wrong(host_in, host_out, a, b) == 0);
}

TEST_CASE("umsync's pool serving cuda::device_buffer, its memory bound to its own stream's tag")
{
  umsync_test::memory_baseline const baseline;
  auto rng = umsync_test::make_rng();
  std::size_t const n = (std::size_t{1} << 18) + (rng() % 1000);
  std::uint32_t const a = static_cast<std::uint32_t>(rng()) | 1U;
  std::uint32_t const b = static_cast<std::uint32_t>(rng());
  umsync::pinned_buffer<std::uint32_t> host_in(n);
  umsync::pinned_buffer<std::uint32_t> host_out(n);
  fill_random(host_in, host_out, rng);
  {
    umsync::memory_pool pool;
    umsync::stream<compute> const s;
    umsync::memory_pool_ref const ref = pool;
    cuda::device_buffer<std::uint32_t> in(s.view(), ref, n, cuda::no_init);
    cuda::device_buffer<std::uint32_t> out(s.view(), ref, n, cuda::no_init);
    umsync::copy_async(umsync::buffer_memory(in, s.view()), host_in, s);
    umsync::launch(s, {.grid = 132, .block = 256}, affine, umsync::buffer_memory(std::as_const(in), s.view()),
                   umsync::buffer_memory(out, s.view()), n, a, b);
    umsync::copy_async(host_out, umsync::buffer_memory(out, s.view()), s);
    s.synchronize();
    if constexpr (umsync::debug_build) {
      umsync::stream<compute> const other;
      CHECK_THROWS_AS(static_cast<void>(umsync::buffer_memory(in, other.view())), umsync::usage_error);
    }
  }
  CHECK(count_wrong(host_in, host_out, a, b) == 0);
}

TEST_CASE("cuda::launch takes untagged umsync spans through transform_launch_argument")
{
  umsync_test::memory_baseline const baseline;
  auto rng = umsync_test::make_rng();
  std::size_t const n = (std::size_t{1} << 18) + (rng() % 1000);
  std::uint32_t const a = static_cast<std::uint32_t>(rng()) | 1U;
  std::uint32_t const b = static_cast<std::uint32_t>(rng());
  umsync::pinned_buffer<std::uint32_t> host_in(n);
  umsync::pinned_buffer<std::uint32_t> host_out(n);
  fill_random(host_in, host_out, rng);
  cudaMemPool_t default_pool = nullptr;
  UMSYNC_CUDA_CHECK(cudaDeviceGetDefaultMemPool(&default_pool, 0));
  cuuint64_t threshold_before = 0;
  UMSYNC_CUDA_CHECK(cudaMemPoolGetAttribute(default_pool, cudaMemPoolAttrReleaseThreshold, &threshold_before));
  {
    cuda::stream const s{cuda::devices[0]};
    auto in = cuda::make_buffer<std::uint32_t>(s, cuda::device_default_memory_pool(cuda::devices[0]), n, cuda::no_init);
    auto out = cuda::make_buffer<std::uint32_t>(s, cuda::device_default_memory_pool(cuda::devices[0]), n,
                                                cuda::no_init);
    UMSYNC_CUDA_CHECK(cudaMemcpyAsync(in.data(), host_in.data(), n * sizeof(std::uint32_t), cudaMemcpyDefault,
                                      s.get()));
    // Raw CCCL memory adopted as untagged spans: the untyped path, on any stream.
    auto const in_span = umsync::device_span<std::uint32_t const>::adopt(in.data(), n);
    auto const out_span = umsync::device_span<std::uint32_t>::adopt(out.data(), n);
    cuda::launch(s, cuda::make_config(cuda::grid_dims(132), cuda::block_dims<256>()), affine_spans{}, in_span, out_span,
                 a, b);
    UMSYNC_CUDA_CHECK(cudaMemcpyAsync(host_out.data(), out.data(), n * sizeof(std::uint32_t), cudaMemcpyDefault,
                                      s.get()));
    s.sync();
  }
  CHECK(count_wrong(host_in, host_out, a, b) == 0);
  // CCCL 3.5's device_default_memory_pool() raises the device's default pool's release threshold
  // from 0 to the largest size, for the whole process (docs/compatibility.md): the pool then
  // keeps what this test freed. Shown here, then put back, so that the baseline and later tests
  // see the default pool as they had it.
  cuuint64_t threshold_after = 0;
  UMSYNC_CUDA_CHECK(cudaMemPoolGetAttribute(default_pool, cudaMemPoolAttrReleaseThreshold, &threshold_after));
  if (threshold_before == 0) {
    CHECK(threshold_after == std::numeric_limits<cuuint64_t>::max());
  }
  UMSYNC_CUDA_CHECK(cudaMemPoolSetAttribute(default_pool, cudaMemPoolAttrReleaseThreshold, &threshold_before));
  UMSYNC_CUDA_CHECK(cudaMemPoolTrimTo(default_pool, 0));
}
