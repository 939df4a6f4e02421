// GPU tests of umsync/memory/resource.hpp, the cuda::mr members of memory_pool.hpp and
// stream_buffer's resource constructors: a buffer takes its memory from a memory_pool
// through a device_resource_ref, and from a user's resource, allocating on its stream and
// freeing on the stream it is bound to (also after a stream_edge's transfer); a resource that
// runs out gives umsync::bad_alloc naming it; memory is back at the end of every test.
#include "support/gpu_test.hpp"
#include "support/mock_resources.hpp"

#include <umsync/launch.hpp>
#include <umsync/memory/copy.hpp>
#include <umsync/memory/memory_pool.hpp>
#include <umsync/memory/pinned_buffer.hpp>
#include <umsync/memory/resource.hpp>
#include <umsync/memory/stream_buffer.hpp>
#include <umsync/stream.hpp>
#include <umsync/stream_edge.hpp>

#include <cstddef>
#include <cstdint>
#include <new>
#include <string>
#include <utility>
#include <vector>

namespace {
struct producer {};
struct consumer {};

__global__ void affine(std::uint32_t const* in, std::uint32_t* out, std::size_t n, std::uint32_t a, std::uint32_t b)
{
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
    out[i] = a * in[i] + b;
  }
}

}  // namespace

namespace {
using umsync_test::counting_resource;

/// Fresh random input through `in`, a*x+b into `out` (poisoned first), back to the host.
template <class Tag>
void check_affine(umsync::stream<Tag> const& s, umsync::stream_buffer<std::uint32_t, Tag>& in,
                  umsync::stream_buffer<std::uint32_t, Tag>& out, std::mt19937_64& rng)
{
  std::size_t const n = in.size();
  REQUIRE(out.size() == n);
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
  UMSYNC_CUDA_CHECK(cudaMemsetAsync(out.data(), 0xA5, out.size_bytes(), s.view()));
  umsync::copy_async(in, host_in, s);
  umsync::launch(s, {.grid = 132, .block = 256}, affine, in, out, n, a, b);
  umsync::copy_async(host_out, out, s);
  s.synchronize();
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < n; ++i) {
    wrong += host_out[i] != a * host_in[i] + b ? 1 : 0;
  }
  CHECK(wrong == 0);
}

}  // namespace

TEST_CASE("a buffer from a memory_pool through a device_resource_ref: right results, memory back to the pool")
{
  umsync_test::memory_baseline const baseline;
  auto rng = umsync_test::make_rng();
  std::size_t const n = (std::size_t{1} << 18) + (rng() % 1000);
  umsync::memory_pool pool;
  umsync::memory_pool_ref handle = pool;  // the reference points at this handle, which outlives the buffers
  umsync::stream<producer> const s;
  {
    umsync::stream_buffer<std::uint32_t, producer> in(n, s, umsync::device_resource_ref(handle));
    umsync::stream_buffer<std::uint32_t, producer> out(n, s, umsync::device_resource_ref(handle));
    CHECK(in.stream().get() == s.get());
    s.synchronize();
    CHECK(handle.used_bytes() >= 2 * n * sizeof(std::uint32_t));
    CHECK(reinterpret_cast<std::uintptr_t>(in.data()) % umsync::device_allocation_alignment == 0);
    check_affine(s, in, out, rng);
  }
  s.synchronize();
  CHECK(handle.used_bytes() == 0);
}

TEST_CASE("a buffer from a user's resource allocates and frees on its stream, with 256-byte alignment")
{
  umsync_test::memory_baseline const baseline;
  auto rng = umsync_test::make_rng();
  std::size_t const n = (std::size_t{1} << 16) + (rng() % 1000);
  counting_resource resource;
  umsync::stream<producer> const s;
  {
    umsync::stream_buffer<std::uint32_t, producer> in(n, s, resource);
    umsync::stream_buffer<std::uint32_t, producer> out(n, s, resource);
    REQUIRE(resource.allocations.size() == 2);
    for (auto const& allocation : resource.allocations) {
      CHECK(allocation.stream == s.get());
      CHECK(allocation.bytes == n * sizeof(std::uint32_t));
      CHECK(allocation.alignment == umsync::device_allocation_alignment);
    }
    CHECK(resource.allocations[0].memory == in.data());
    CHECK(resource.frees.empty());
    check_affine(s, in, out, rng);
  }
  REQUIRE(resource.frees.size() == 2);
  for (auto const& free : resource.frees) {
    CHECK(free.stream == s.get());
    CHECK(free.bytes == n * sizeof(std::uint32_t));
    CHECK(free.alignment == umsync::device_allocation_alignment);
  }
  CHECK(resource.synchronous_calls == 0);  // a buffer never uses the synchronous pair
  s.synchronize();
}

TEST_CASE("after a stream_edge's transfer, the buffer frees to its resource on the new stream")
{
  umsync_test::memory_baseline const baseline;
  auto rng = umsync_test::make_rng();
  std::size_t const n = 4096 + (rng() % 1000);
  counting_resource resource;
  umsync::stream<producer> const ps;
  umsync::stream<consumer> const cs;
  std::vector<std::uint32_t> host(n);
  for (auto& x : host) {
    x = static_cast<std::uint32_t>(rng());
  }
  std::vector<std::uint32_t> back(n, 0xDEADBEEF);  // poison
  {
    umsync::stream_buffer<std::uint32_t, producer> on_producer(n, ps, resource);
    umsync::copy_sync_pageable(on_producer, host, ps);
    umsync::stream_edge edge(ps, cs);
    umsync::stream_buffer<std::uint32_t, consumer> on_consumer = edge.transfer(std::move(on_producer));
    CHECK(on_consumer.stream().get() == cs.get());
    // The moved-from source frees nothing.
    CHECK(resource.frees.empty());
    umsync::copy_sync_pageable(back, on_consumer, cs);
  }
  CHECK(back == host);
  REQUIRE(resource.allocations.size() == 1);
  REQUIRE(resource.frees.size() == 1);
  CHECK(resource.allocations[0].stream == ps.get());
  CHECK(resource.frees[0].stream == cs.get());
  CHECK(resource.frees[0].memory == resource.allocations[0].memory);
  cs.synchronize();
}

TEST_CASE("a temporary device_resource_ref is kept by the buffer; zero elements ask the resource for nothing")
{
  umsync_test::memory_baseline const baseline;
  counting_resource resource;
  umsync::stream<> const s;
  {
    umsync::stream_buffer<float> x(1000, s, umsync::device_resource_ref(resource));
    umsync::stream_buffer<float> none(0, s, resource);
    CHECK(none.empty());
    CHECK(none.data() == nullptr);
    CHECK(resource.allocations.size() == 1);
    UMSYNC_CUDA_CHECK(cudaMemsetAsync(x.data(), 0, x.size_bytes(), s.view()));
  }
  CHECK(resource.frees.size() == 1);
  s.synchronize();
}

TEST_CASE("a resource that runs out gives umsync::bad_alloc naming it and the caller's line")
{
  umsync_test::memory_baseline const baseline;
  umsync::stream<> const s;
  counting_resource resource;
  for (auto const failure : {counting_resource::failure::throws, counting_resource::failure::returns_null}) {
    resource.fail = failure;
    try {
      umsync::stream_buffer<float> x(1000, s, resource);
      FAIL("the allocation should have failed");
    } catch (umsync::bad_alloc const& exhausted) {
      std::string const what = exhausted.what();
      CHECK(what.find("counting_resource") != std::string::npos);
      CHECK(what.find("4000 bytes") != std::string::npos);
      CHECK(what.find("memory/resource_test.cu") != std::string::npos);
      CHECK(exhausted.requested_bytes() == 4000);
    }
  }
  CHECK(resource.frees.empty());

  // A memory_pool with a cap, through a device_resource_ref: still bad_alloc, naming the pool.
  umsync::memory_pool capped({.max_bytes = std::size_t{2} << 20});
  umsync::memory_pool_ref handle = capped;
  try {
    umsync::stream_buffer<std::byte> x(std::size_t{64} << 20, s, umsync::device_resource_ref(handle));
    FAIL("the allocation should have failed");
  } catch (umsync::bad_alloc const& exhausted) {
    std::string const what = exhausted.what();
    CHECK(what.find("device_resource_ref") != std::string::npos);
    CHECK(what.find("memory_pool_ref") != std::string::npos);
    CHECK(what.rfind("umsync: ", 0) == 0);
    CHECK(what.find("umsync: ", 1) == std::string::npos);  // one prefix, though the pool's message is inside
  } catch (std::bad_alloc const&) {
    FAIL("std::bad_alloc that is not umsync::bad_alloc");
  }
}

TEST_CASE("memory_pool's cuda::mr members, by this CCCL's names: stream-ordered, synchronous, out of memory")
{
  umsync_test::memory_baseline const baseline;
  umsync::memory_pool pool;
  umsync::memory_pool_ref const handle = pool;
  umsync::stream<> const s;
  std::size_t const bytes = std::size_t{1} << 20;

#if UMSYNC_DETAIL_CCCL_STREAM_ORDERED_ALLOCATE
  void* a = pool.allocate(s, bytes, 256);
  void* b = handle.allocate(s, bytes, 64);
#else
  void* a = pool.allocate_async(bytes, 256, s);
  void* b = handle.allocate_async(bytes, 64, s);
#endif
  CHECK(reinterpret_cast<std::uintptr_t>(a) % 256 == 0);
  UMSYNC_CUDA_CHECK(cudaMemsetAsync(a, 1, bytes, s.view()));
  UMSYNC_CUDA_CHECK(cudaMemsetAsync(b, 2, bytes, s.view()));
#if UMSYNC_DETAIL_CCCL_STREAM_ORDERED_ALLOCATE
  pool.deallocate(s, a, bytes, 256);
  handle.deallocate(s, b, bytes, 64);
#else
  pool.deallocate_async(a, bytes, 256, s);
  handle.deallocate_async(b, bytes, 64, s);
#endif
  s.synchronize();
  CHECK(handle.used_bytes() == 0);

#if UMSYNC_DETAIL_CCCL_STREAM_ORDERED_ALLOCATE
  void* c = pool.allocate_sync(bytes, 256);  // usable at once on any stream
#else
  void* c = pool.allocate(bytes, 256);
#endif
  CHECK(handle.used_bytes() >= bytes);
  UMSYNC_CUDA_CHECK(cudaMemsetAsync(c, 3, bytes, s.view()));
  s.synchronize();
#if UMSYNC_DETAIL_CCCL_STREAM_ORDERED_ALLOCATE
  pool.deallocate_sync(c, bytes, 256);
#else
  pool.deallocate(c, bytes, 256);
#endif
  CHECK(handle.used_bytes() == 0);

  // Out of memory: bad_alloc naming the pool and what it holds.
  umsync::memory_pool capped({.max_bytes = std::size_t{2} << 20});
  try {
    static_cast<void>(umsync::detail::allocate_from(capped, s, std::size_t{64} << 20, 256));
    FAIL("the allocation should have failed");
  } catch (umsync::bad_alloc const& exhausted) {
    std::string const what = exhausted.what();
    CHECK(what.find("memory_pool_ref") != std::string::npos);
    CHECK(what.find("pool reserved") != std::string::npos);
  }
}

TEST_CASE("detail::allocate_from and deallocate_to reach a resource by this CCCL's names")
{
  umsync_test::memory_baseline const baseline;
  counting_resource resource;
  umsync::device_resource_ref ref = resource;
  umsync::stream<> const s;
  void* memory = umsync::detail::allocate_from(ref, s, 4096, 256);
  REQUIRE(memory != nullptr);
  umsync::detail::deallocate_to(ref, s, memory, 4096, 256);
  REQUIRE(resource.allocations.size() == 1);
  REQUIRE(resource.frees.size() == 1);
  CHECK(resource.frees[0].stream == s.get());
  s.synchronize();
}
