// GPU tests of the UMSYNC_DEBUG ordering checker through umsync's types: it catches what the
// types cannot see (two streams with the same tag, untagged memory shared between streams),
// without needing the race to show up on the GPU.
#include "support/gpu_test.hpp"
#include "support/kernels.cuh"

#include <umsync/umsync.hpp>

#include <cstdint>
#include <string>

static_assert(umsync::debug_build, "this file is built with UMSYNC_DEBUG");

namespace {
struct compute {};
}  // namespace

TEST_CASE("two streams that share a tag: a use without an edge throws ordering_error naming both sites")
{
  umsync_test::memory_baseline const baseline;
  umsync::stream<compute> const first;
  umsync::stream<compute> const second;  // same tag: the types allow it, the checker does not
  std::size_t const n = 1 << 16;
  {
    umsync::async_pool_buffer<std::uint32_t, compute> in(n, first);
    umsync::async_pool_buffer<std::uint32_t, compute> out(n, first);
    UMSYNC_CUDA_CHECK(cudaMemsetAsync(in.data(), 1, in.size_bytes(), first.view()));
    umsync::launch(first, {.grid = 64, .block = 256}, umsync_test::xor_with, in, out, n, 7U);
    unsigned const line = std::source_location::current().line() + 2;
    try {
      umsync::launch(second, {.grid = 64, .block = 256}, umsync_test::xor_with, out, in, n, 7U);
      FAIL("no ordering_error");
    } catch (umsync::ordering_error const& e) {
      MESSAGE(e.what());
      CHECK(e.earlier().stream == static_cast<void const*>(first.get()));
      CHECK(e.later().stream == static_cast<void const*>(second.get()));
      CHECK(e.later().where.line() == line);
    }
    // With the edge the same launch is accepted.
    umsync::stream_dependency edge(first.view(), second.view());
    edge.edge();
    CHECK_NOTHROW(umsync::launch(second, {.grid = 64, .block = 256}, umsync_test::xor_with, out, in, n, 7U));
    // Hand the buffers back before they are freed on `first`.
    umsync::stream_dependency back(second.view(), first.view());
    back.edge();
  }
  first.synchronize();
  second.synchronize();
}

TEST_CASE("untagged memory on two untagged streams is checked too; host synchronization orders it")
{
  umsync_test::memory_baseline const baseline;
  umsync::stream<> const a;
  umsync::stream<> const b;
  std::uint32_t* raw = nullptr;
  UMSYNC_CUDA_CHECK(cudaMalloc(&raw, 1024 * sizeof(std::uint32_t)));
  auto const span = umsync::device_span<std::uint32_t>::adopt(raw, 1024);
  umsync::pinned_buffer<std::uint32_t> host(1024);
  umsync::copy_async(span, host, a);
  CHECK_THROWS_AS(umsync::copy_async(host, span, b), umsync::ordering_error);
  a.synchronize();  // the host waited for a: what it issues next is ordered after
  CHECK_NOTHROW(umsync::copy_async(host, span, b));
  b.synchronize();
  UMSYNC_CUDA_CHECK(cudaFree(raw));
}

TEST_CASE("fan-out without fan-in: writing the shared buffer again on the owner is reported")
{
  umsync_test::memory_baseline const baseline;
  struct owner_tag {};
  struct reader_tag {};
  umsync::stream<owner_tag> const owner;
  umsync::stream<reader_tag> const reader;
  std::size_t const n = 4096;
  {
    umsync::async_pool_buffer<std::uint32_t, owner_tag> shared(n, owner);
    umsync::async_pool_buffer<std::uint32_t, owner_tag> other(n, owner);
    umsync::async_pool_buffer<std::uint32_t, reader_tag> result(n, reader);
    UMSYNC_CUDA_CHECK(cudaMemsetAsync(shared.data(), 3, shared.size_bytes(), owner.view()));
    UMSYNC_CUDA_CHECK(cudaMemsetAsync(other.data(), 4, other.size_bytes(), owner.view()));
    umsync::stream_dependency lend(owner, reader);
    auto const view = lend.share(shared);
    umsync::launch(reader, {.grid = 16, .block = 256}, umsync_test::xor_with, view, result, n, 1U);
    // No join: the owner overwriting its buffer races with the reader.
    CHECK_THROWS_AS(umsync::launch(owner, {.grid = 16, .block = 256}, umsync_test::xor_with, other, shared, n, 2U),
                    umsync::ordering_error);
    umsync::stream_dependency(reader, owner).edge();  // the join makes the same write legal
    CHECK_NOTHROW(umsync::launch(owner, {.grid = 16, .block = 256}, umsync_test::xor_with, other, shared, n, 2U));
    reader.synchronize();
  }
  owner.synchronize();
}
