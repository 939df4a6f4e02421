// GPU tests of umsync/memory/copy.hpp: copy_async (device, pinned or managed memory, never blocks
// the host, the front of a larger destination, sizes checked) and copy_sync_pageable (pageable host
// ranges, waits for the stream, refused on a view of a capturing stream). Its host tests:
// memory/copy_host_test.cpp; its compile-time rules: memory/compile_fail/ (pageable_async_copy,
// async_copy_from_temporary, copy_into_read_only, copy_on_foreign_stream).
#include "support/gpu_test.hpp"
#include "support/graph_warm_up.cuh"
#include "support/kernels.cuh"

#include <umsync/cuda_tool.hpp>
#include <umsync/graph/capture_scope.hpp>
#include <umsync/launch.hpp>
#include <umsync/memory/copy.hpp>
#include <umsync/memory/pinned_buffer.hpp>
#include <umsync/memory/stream_buffer.hpp>
#include <umsync/stream.hpp>

#include <array>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <vector>

namespace {
struct compute {};
struct left {};

using u32 = std::uint32_t;
constexpr umsync::launch_config grid{.grid = 132, .block = 256};
constexpr u32 poison = 0xDEADBEEF;
}  // namespace

TEST_CASE("pageable memory goes through the named blocking copy")
{
  umsync_test::memory_baseline const baseline;
  auto rng = umsync_test::make_rng();
  umsync::stream<> const s;
  std::vector<float> host(4097);
  for (auto& x : host) {
    x = static_cast<float>(rng() % 1000) * 0.5F;
  }
  std::vector<float> back(host.size(), -1.0F);
  umsync::stream_buffer<float> device(host.size(), s);
  umsync::copy_sync_pageable(device, host, s);
  umsync::copy_sync_pageable(back, device, s);
  CHECK(back == host);
}

TEST_CASE("copies check sizes")
{
  umsync::stream<> const s;
  umsync::stream_buffer<int> small(8, s);
  umsync::pinned_buffer<int> large(16);
  CHECK_THROWS_AS(umsync::copy_async(small, large, s), umsync::length_error);
  s.synchronize();
}

TEST_CASE("copy_async returns while earlier work on its stream still runs: it never blocks the host")
{
  umsync_test::memory_baseline const baseline;
  auto rng = umsync_test::make_rng();
  std::size_t const n = (std::size_t{1} << 16) + (rng() % 1000);
  umsync::stream<compute> const s;
  umsync::pinned_buffer<u32> host_in(n);
  umsync::pinned_buffer<u32> host_out(n);
  for (auto& x : host_in) {
    x = static_cast<u32>(rng());
  }
  for (auto& x : host_out) {
    x = poison;
  }
  {
    umsync::stream_buffer<u32, compute> device(n, s);
    umsync::launch(s, {}, umsync_test::spin_for, std::uint64_t{100'000'000});  // 100 ms
    umsync::copy_async(device, host_in, s);
    umsync::copy_async(host_out, device, s);
    // Both copies are queued behind the spin; a copy that waited would find the stream idle.
    // compute-sanitizer's initcheck completes copies from the host before returning (seen on an
    // H100), so under a tool only the copies' result is checked.
    if (umsync::cuda_tool_attached()) {
      MESSAGE("a CUDA tool instruments this process: it may complete copies synchronously; not checked here");
    } else {
      CHECK_FALSE(s.ready());
    }
    s.synchronize();
  }
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < n; ++i) {
    wrong += host_out[i] != host_in[i] ? 1 : 0;
  }
  CHECK(wrong == 0);
}

TEST_CASE("copy_async writes the front of a larger destination and leaves the rest as it was")
{
  umsync_test::memory_baseline const baseline;
  auto rng = umsync_test::make_rng();
  std::size_t const n = (std::size_t{1} << 16) + (rng() % 1000);
  std::size_t const extra = 1 + (rng() % 4096);
  umsync::stream<compute> const s;
  umsync::pinned_buffer<u32> source(n);
  umsync::pinned_buffer<u32> back(n + extra);
  for (auto& x : source) {
    x = static_cast<u32>(rng());
  }
  for (auto& x : back) {
    x = poison;
  }
  {
    umsync::stream_buffer<u32, compute> device(n + extra, s);
    UMSYNC_CUDA_CHECK(cudaMemsetAsync(device.data(), 0xA5, device.size_bytes(), s.view()));
    umsync::copy_async(device, source, s);
    umsync::copy_async(back, device, s);  // all of device: the copied front and the untouched tail
    s.synchronize();
  }
  std::size_t wrong_front = 0;
  for (std::size_t i = 0; i < n; ++i) {
    wrong_front += back[i] != source[i] ? 1 : 0;
  }
  std::size_t wrong_tail = 0;
  for (std::size_t i = n; i < n + extra; ++i) {
    wrong_tail += back[i] != 0xA5A5A5A5U ? 1 : 0;
  }
  CHECK(wrong_front == 0);
  CHECK(wrong_tail == 0);
}

TEST_CASE("copy_sync_pageable waits for its copy and for the work queued before it")
{
  umsync_test::memory_baseline const baseline;
  auto rng = umsync_test::make_rng();
  std::size_t const n = (std::size_t{1} << 20) + (rng() % 1000);
  std::vector<u32> const input = umsync_test::random_words(rng, n);
  std::vector<u32> output(n, poison);
  umsync::stream<compute> const s;
  {
    umsync::stream_buffer<u32, compute> in(n, s);
    umsync::stream_buffer<u32, compute> out(n, s);
    UMSYNC_CUDA_CHECK(cudaMemsetAsync(out.data(), 0x5A, out.size_bytes(), s.view()));
    umsync::copy_sync_pageable(in, input, s);
    umsync::launch(s, {.grid = 264, .block = 256}, umsync_test::delayed_affine, in, out, n,
                   std::uint64_t{50'000'000});  // 50 ms late
    umsync::copy_sync_pageable(output, out, s);
    CHECK(s.ready());  // no synchronize in between: the copy waited for the kernel and for itself
  }
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < n; ++i) {
    wrong += output[i] != 3U * input[i] + 1U ? 1 : 0;
  }
  CHECK(wrong == 0);
}

TEST_CASE("the pageable side of copy_sync_pageable is any contiguous host range: std::array, std::span, pageable_span")
{
  umsync_test::memory_baseline const baseline;
  auto rng = umsync_test::make_rng();
  std::array<u32, 1000> input{};
  for (auto& x : input) {
    x = static_cast<u32>(rng());
  }
  std::vector<u32> const expected(input.begin(), input.end());
  std::vector<u32> through_span(input.size(), poison);
  std::vector<u32> through_pageable_span(input.size(), poison);
  umsync::stream<compute> const s;
  {
    umsync::stream_buffer<u32, compute> device(input.size(), s);
    UMSYNC_CUDA_CHECK(cudaMemsetAsync(device.data(), 0xA5, device.size_bytes(), s.view()));
    umsync::copy_sync_pageable(device, input, s);
    umsync::copy_sync_pageable(std::span<u32>(through_span), device, s);
    umsync::copy_sync_pageable(
        umsync::pageable_span<u32>::adopt(through_pageable_span.data(), through_pageable_span.size()), device, s);
  }
  CHECK(through_span == expected);
  CHECK(through_pageable_span == expected);
}

TEST_CASE("copy_sync_pageable on a view of a capturing stream is refused before the copy is queued")
{
  umsync_test::warm_up_graphs();
  umsync_test::memory_baseline const baseline;
  std::size_t const n = 1024;
  std::vector<u32> host(n, 7U);
  umsync::stream<left> const a;
  umsync::stream_buffer<u32, left> device(n, a);
  UMSYNC_CUDA_CHECK(cudaMemsetAsync(device.data(), 0, device.size_bytes(), a.view()));
  {
    umsync::capture_scope scope(a);
    umsync::stream_view<left> const view = a.view();
    CHECK_THROWS_AS(umsync::copy_sync_pageable(device, host, view), umsync::capture_error);
    cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
    UMSYNC_CUDA_CHECK(cudaStreamIsCapturing(a.get(), &status));
    CHECK(status == cudaStreamCaptureStatusActive);
    umsync::launch(scope.stream(), grid, umsync_test::xor_with, device, device, n, u32{1});
    umsync::graph const g = scope.end();
    CHECK(g.count_nodes(cudaGraphNodeTypeMemcpy) == 0);
    CHECK(g.count_nodes(cudaGraphNodeTypeKernel) == 1);
  }
  a.synchronize();
}
