// GPU tests of umsync with RMM (umsync::rmm): the two directions of cuda::mr.
//
// - umsync's stream_buffer allocates from RMM's resources (cuda_async_memory_resource,
//   pool_memory_resource over cuda_async_memory_resource and over cuda_memory_resource), each
//   seen through a statistics_resource_adaptor: its counters must show exactly the bytes of
//   umsync's buffers while they live, and 0 once they are freed on their stream.
// - RMM's device_buffer and device_uvector allocate from umsync's memory_pool (through
//   rmm::device_async_resource_ref and through memory_pool_ref): the pool's used bytes go up by
//   their bytes, and back down once they are freed on their stream.
//
// In both, data goes through umsync's copies and launch on a umsync stream, from fresh random
// input into poisoned output, and is checked against a host reference.
//
// RMM's failure contract (umsync/rmm.hpp): 1 PiB from umsync's pool through RMM's containers and
// RMM's failure_callback_resource_adaptor fails as rmm::out_of_memory, on the calling thread and
// on another one (where an uncaught exception would abort), and leaves the pool as it was;
// umsync's own buffer from the same pool still throws umsync::bad_alloc.
#include "support/gpu_test.hpp"

#include <umsync/launch.hpp>
#include <umsync/memory/copy.hpp>
#include <umsync/memory/memory_pool.hpp>
#include <umsync/memory/pinned_buffer.hpp>
#include <umsync/memory/resource.hpp>
#include <umsync/memory/stream_buffer.hpp>
#include <umsync/rmm.hpp>
#include <umsync/stream.hpp>

#include <rmm/device_buffer.hpp>
#include <rmm/device_uvector.hpp>
#include <rmm/mr/cuda_async_memory_resource.hpp>
#include <rmm/mr/cuda_memory_resource.hpp>
#include <rmm/mr/failure_callback_resource_adaptor.hpp>
#include <rmm/mr/pool_memory_resource.hpp>
#include <rmm/mr/statistics_resource_adaptor.hpp>
#include <rmm/resource_ref.hpp>

#include <cstddef>
#include <cstdint>
#include <new>
#include <random>
#include <string>
#include <thread>

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
    umsync::stream_buffer<std::uint32_t, compute> in(n, s, stats);
    umsync::stream_buffer<std::uint32_t, compute> out(m, s, stats);
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
    umsync::stream_buffer<std::uint32_t, compute> in(n, s, ref);
    umsync::stream_buffer<std::uint32_t, compute> out(n, s, ref);
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
    umsync::stream_buffer<std::uint32_t, compute> in(n, s, stats);
    umsync::stream_buffer<std::uint32_t, compute> out(n, s, stats);
    s.synchronize();
    CHECK(stats.get_bytes_counter().value == static_cast<std::int64_t>(2 * n * sizeof(std::uint32_t)));
    CHECK(pool_ref.used_bytes() >= used_before + 2 * n * sizeof(std::uint32_t));
    check_affine_round_trip(rng, s, in, out, n);
  }
  s.synchronize();
  CHECK(stats.get_bytes_counter().value == 0);
  CHECK(pool_ref.used_bytes() == used_before);
}

namespace {
// More than any device holds: every pool runs out.
constexpr std::size_t one_pib = std::size_t{1} << 50;
}  // namespace

TEST_CASE("1 PiB from umsync's pool through rmm::device_buffer: rmm::out_of_memory, a umsync::error too")
{
  umsync_test::memory_baseline const baseline;
  umsync::stream<compute> const s;
  umsync::memory_pool pool;
  umsync::memory_pool_ref const pool_ref = pool;
  std::uint64_t const used_before = pool_ref.used_bytes();
  CHECK_THROWS_AS(rmm::device_buffer(one_pib, s.view(), pool_ref), rmm::out_of_memory);
  CHECK_THROWS_AS(rmm::device_buffer(one_pib, s.view(), pool_ref), std::bad_alloc);
  try {
    rmm::device_buffer const never(one_pib, s.view(), pool_ref);
    FAIL("1 PiB was allocated");
  } catch (umsync::error const& failure) {
    std::string const what = failure.what();
    CHECK(what.rfind("umsync: umsync::memory_pool_ref (cudaMallocFromPoolAsync) could not allocate", 0) == 0);
    CHECK(dynamic_cast<rmm::out_of_memory const*>(&failure) != nullptr);
  }
  // umsync's own buffers keep umsync's error family.
  using byte_buffer = umsync::stream_buffer<std::byte, compute>;
  CHECK_THROWS_AS(byte_buffer(one_pib, s, pool), umsync::bad_alloc);
  s.synchronize();
  CHECK(pool_ref.used_bytes() == used_before);
}

TEST_CASE("RMM's failure_callback_resource_adaptor over umsync's pool: the callback sees each out of memory")
{
  umsync_test::memory_baseline const baseline;
  umsync::stream<compute> const s;
  umsync::memory_pool pool;
  umsync::memory_pool_ref const pool_ref = pool;
  int calls = 0;
  rmm::mr::failure_callback_resource_adaptor<> adaptor(
      pool_ref,
      [](std::size_t bytes, void* count) {
        CHECK(bytes == one_pib);
        return ++*static_cast<int*>(count) < 2;  // retry once, then give up
      },
      &calls);
  CHECK_THROWS_AS(rmm::device_buffer(one_pib, s.view(), adaptor), rmm::out_of_memory);
  CHECK(calls == 2);
  // What fits still comes through the adaptor from umsync's pool.
  {
    rmm::device_buffer const fits(4096, s.view(), adaptor);
    CHECK(fits.size() == 4096);
    CHECK(pool_ref.used_bytes() >= 4096);
  }
  s.synchronize();
  CHECK(calls == 2);
}

TEST_CASE("1 PiB from umsync's pool through RMM on another thread: caught there as rmm::out_of_memory")
{
  umsync_test::memory_baseline const baseline;
  umsync::memory_pool pool;
  umsync::memory_pool_ref const pool_ref = pool;
  bool out_of_memory = false;
  bool other = false;
  std::thread worker([&] {
    // The thread's own stream: RMM's containers are used per thread in RMM's battery.
    umsync::stream<compute> const s;
    try {
      rmm::device_buffer const never(one_pib, s.view(), pool_ref);
    } catch (rmm::out_of_memory const&) {
      out_of_memory = true;
    } catch (...) {
      other = true;
    }
    s.synchronize();
  });
  worker.join();
  CHECK(out_of_memory);
  CHECK_FALSE(other);
}
