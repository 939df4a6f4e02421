// GPU tests of umsync with RMM (umsync::rmm): the two directions of cuda::mr.
//
// - umsync's async_pool_buffer allocates from RMM's resources (cuda_async_memory_resource,
//   pool_memory_resource over cuda_async_memory_resource and over cuda_memory_resource), each
//   seen through a statistics_resource_adaptor: its counters must show exactly the bytes of
//   umsync's buffers while they live, and 0 once they are freed on their stream.
// - RMM's device_buffer and device_uvector allocate from umsync's memory_pool (through
//   rmm::device_async_resource_ref and through memory_pool_ref): the pool's used bytes go up by
//   their bytes, and back down once they are freed on their stream.
//
// In both, data goes through umsync's copies and launch on a umsync stream, from fresh random
// input into poisoned output, and is checked against a host reference.
#include "support/gpu_test.hpp"

#include <umsync/launch.hpp>
#include <umsync/memory/async_pool_buffer.hpp>
#include <umsync/memory/copy.hpp>
#include <umsync/memory/memory_pool.hpp>
#include <umsync/memory/pinned_buffer.hpp>
#include <umsync/memory/resource.hpp>
#include <umsync/stream.hpp>

#include <rmm/device_buffer.hpp>
#include <rmm/device_uvector.hpp>
#include <rmm/mr/cuda_async_memory_resource.hpp>
#include <rmm/mr/cuda_memory_resource.hpp>
#include <rmm/mr/pool_memory_resource.hpp>
#include <rmm/mr/statistics_resource_adaptor.hpp>
#include <rmm/resource_ref.hpp>

#include <cstddef>
#include <cstdint>
#include <random>

namespace {
struct compute {};

__global__ void affine(std::uint32_t const* in, std::uint32_t* out, std::size_t n, std::uint32_t a, std::uint32_t b)
{
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
    out[i] = a * in[i] + b;
  }
}

// A size that is not a round number, so that a resource that rounds up would show in the counts.
std::size_t random_count(std::mt19937_64& rng) { return (std::size_t{1} << 20) + (rng() % 1000); }

// Fresh random input, poisoned output, `a * x + b` on the device through umsync, checked on the
// host, over the first `n` elements of each. `in` and `out` are umsync memory (buffers or spans)
// bound to `s`, of at least `n` elements (their sizes may differ).
template <class In, class Out>
void check_affine_round_trip(std::mt19937_64& rng, umsync::stream<compute> const& s, In& in_memory, Out& out_memory,
                             std::size_t n)
{
  auto in = umsync::memory_of(in_memory).first(n);
  auto out = umsync::memory_of(out_memory).first(n);
  std::uint32_t const a = static_cast<std::uint32_t>(rng()) | 1U;
  std::uint32_t const b = static_cast<std::uint32_t>(rng());
  umsync::pinned_buffer<std::uint32_t> host_in(n);
  umsync::pinned_buffer<std::uint32_t> host_out(n);
  for (auto& x : host_in) {
    x = static_cast<std::uint32_t>(rng());
  }
  for (auto& x : host_out) {
    x = 0xDEADBEEF;  // poison
  }
  UMSYNC_CUDA_CHECK(cudaMemsetAsync(out.data(), 0xA5, n * sizeof(std::uint32_t), s.view()));
  umsync::copy_async(in, host_in, s);
  umsync::launch(s, {.grid = 264, .block = 256}, affine, in, out, n, a, b);
  umsync::copy_async(host_out, out, s);
  s.synchronize();
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < n; ++i) {
    wrong += host_out[i] != a * host_in[i] + b ? 1 : 0;
  }
  CHECK(wrong == 0);
}

// umsync buffers from `resource` (seen through `stats`, which wraps it): the adaptor counts
// exactly their bytes while they live and none after their frees, ordered on `s`, have run.
template <class Resource>
void buffers_from_resource(Resource& resource)
{
  auto rng = umsync_test::make_rng();
  umsync::stream<compute> const s;
  rmm::mr::statistics_resource_adaptor stats{resource};
  static_assert(umsync::stream_ordered_resource<rmm::mr::statistics_resource_adaptor>);
  std::size_t const n = random_count(rng);
  std::size_t const m = random_count(rng);
  auto const bytes = static_cast<std::int64_t>((n + m) * sizeof(std::uint32_t));
  {
    umsync::async_pool_buffer<std::uint32_t, compute> in(n, s, stats);
    umsync::async_pool_buffer<std::uint32_t, compute> out(m, s, stats);
    CHECK(stats.get_bytes_counter().value == bytes);
    CHECK(stats.get_allocations_counter().value == 2);
    check_affine_round_trip(rng, s, in, out, n < m ? n : m);
  }
  s.synchronize();
  CHECK(stats.get_bytes_counter().value == 0);
  CHECK(stats.get_bytes_counter().peak == bytes);
  CHECK(stats.get_bytes_counter().total == bytes);
  CHECK(stats.get_allocations_counter().value == 0);
  CHECK(stats.get_allocations_counter().total == 2);
}

}  // namespace

TEST_CASE("umsync buffers from RMM's cuda_async_memory_resource: counted exactly, data round-trips")
{
  umsync_test::memory_baseline const baseline;
  rmm::mr::cuda_async_memory_resource resource;
  buffers_from_resource(resource);
}

TEST_CASE("umsync buffers from RMM's pool_memory_resource over cuda_async_memory_resource")
{
  umsync_test::memory_baseline const baseline;
  rmm::mr::pool_memory_resource pool{rmm::mr::cuda_async_memory_resource{}, std::size_t{64} << 20};
  std::size_t const reserved = pool.pool_size();
  buffers_from_resource(pool);
  CHECK(pool.pool_size() == reserved);  // 8 MiB fit the initial 64 MiB: the pool did not grow
}

TEST_CASE("umsync buffers from RMM's pool_memory_resource over cuda_memory_resource")
{
  umsync_test::memory_baseline const baseline;
  rmm::mr::pool_memory_resource pool{rmm::mr::cuda_memory_resource{}, std::size_t{64} << 20};
  buffers_from_resource(pool);
}

TEST_CASE("umsync buffers from an rmm::device_async_resource_ref (a statistics adaptor behind it)")
{
  umsync_test::memory_baseline const baseline;
  auto rng = umsync_test::make_rng();
  umsync::stream<compute> const s;
  rmm::mr::cuda_async_memory_resource upstream;
  rmm::mr::statistics_resource_adaptor stats{upstream};
  rmm::device_async_resource_ref const ref{stats};
  std::size_t const n = random_count(rng);
  {
    umsync::async_pool_buffer<std::uint32_t, compute> in(n, s, ref);
    umsync::async_pool_buffer<std::uint32_t, compute> out(n, s, ref);
    CHECK(stats.get_bytes_counter().value == static_cast<std::int64_t>(2 * n * sizeof(std::uint32_t)));
    check_affine_round_trip(rng, s, in, out, n);
  }
  s.synchronize();
  CHECK(stats.get_bytes_counter().value == 0);
}

TEST_CASE("RMM's device_buffer and device_uvector from umsync's memory_pool: the pool counts them")
{
  umsync_test::memory_baseline const baseline;
  auto rng = umsync_test::make_rng();
  umsync::stream<compute> const s;
  umsync::memory_pool pool;
  // RMM refers to the pool through its (copyable) handle: CCCL 3.5's resource_ref and
  // any_resource need a copyable resource, and memory_pool is move-only.
  umsync::memory_pool_ref pool_ref = pool;
  std::size_t const n = random_count(rng);
  std::uint64_t const used_before = pool_ref.used_bytes();
  {
    // Through RMM's own reference type, and through a copy of umsync's pool handle.
    rmm::device_buffer in(n * sizeof(std::uint32_t), s.view(), rmm::device_async_resource_ref{pool_ref});
    rmm::device_uvector<std::uint32_t> out(n, s.view(), pool_ref);
    s.synchronize();
    CHECK(in.size() == n * sizeof(std::uint32_t));
    CHECK(out.size() == n);
    CHECK(pool_ref.used_bytes() >= used_before + 2 * n * sizeof(std::uint32_t));

    // RMM's memory is umsync memory once adopted as a span bound to the stream it lives on.
    auto in_span = umsync::device_span<std::uint32_t, compute>::adopt(static_cast<std::uint32_t*>(in.data()), n);
    auto out_span = umsync::device_span<std::uint32_t, compute>::adopt(out.data(), out.size());
    check_affine_round_trip(rng, s, in_span, out_span, n);
  }
  s.synchronize();
  CHECK(pool_ref.used_bytes() == used_before);
}

TEST_CASE("an RMM statistics adaptor over umsync's memory_pool, with umsync's buffers on top")
{
  umsync_test::memory_baseline const baseline;
  auto rng = umsync_test::make_rng();
  umsync::stream<compute> const s;
  umsync::memory_pool pool;
  umsync::memory_pool_ref const pool_ref = pool;
  rmm::mr::statistics_resource_adaptor stats{pool_ref};
  std::size_t const n = random_count(rng);
  std::uint64_t const used_before = pool_ref.used_bytes();
  {
    umsync::async_pool_buffer<std::uint32_t, compute> in(n, s, stats);
    umsync::async_pool_buffer<std::uint32_t, compute> out(n, s, stats);
    s.synchronize();
    CHECK(stats.get_bytes_counter().value == static_cast<std::int64_t>(2 * n * sizeof(std::uint32_t)));
    CHECK(pool_ref.used_bytes() >= used_before + 2 * n * sizeof(std::uint32_t));
    check_affine_round_trip(rng, s, in, out, n);
  }
  s.synchronize();
  CHECK(stats.get_bytes_counter().value == 0);
  CHECK(pool_ref.used_bytes() == used_before);
}
