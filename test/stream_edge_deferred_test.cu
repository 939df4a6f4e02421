// GPU tests of umsync/stream_edge.hpp: an edge recorded after a consumer's kernel and waited
// on later keeps a refill from overtaking that kernel; transfer through it rebinds; a wait with
// nothing recorded is refused.
#include "support/gpu_test.hpp"
#include "support/kernels.cuh"

#include <umsync/launch.hpp>
#include <umsync/memory/copy.hpp>
#include <umsync/stream_edge.hpp>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace {
using u32 = std::uint32_t;
struct loader {};
struct compute {};
constexpr umsync::launch_config grid{.grid = 264, .block = 256};

/// How many outputs are not 3 * input + 1 (what umsync_test::delayed_affine writes).
std::size_t wrong_affine(std::vector<u32> const& input, std::vector<u32> const& output)
{
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < input.size(); ++i) {
    wrong += output[i] != 3U * input[i] + 1U ? 1 : 0;
  }
  return wrong;
}
}  // namespace

TEST_CASE("a slot is refilled only after the kernel that reads it, although the edge was recorded long before")
{
  umsync_test::memory_baseline const baseline;
  auto rng = umsync_test::make_rng();
  std::size_t const n = (std::size_t{1} << 20) + rng() % 1000;
  std::vector<u32> const input = umsync_test::random_words(rng, n);
  std::vector<u32> output(n, 0);
  {
    umsync::stream<loader> const ls;
    umsync::stream<compute> const cs;
    umsync::stream_edge slot_free(cs, ls, umsync::deferred);
    CHECK_FALSE(slot_free.recorded());
    umsync::stream_buffer<u32, compute> slot(n, cs);
    umsync::stream_buffer<u32, compute> out(n, cs);
    umsync::copy_sync_pageable(slot, input, cs);
    UMSYNC_CUDA_CHECK(cudaMemsetAsync(out.data(), 0x5A, out.size_bytes(), cs.view()));  // poison
    // The consumer reads the slot 20 ms late; the edge is recorded right after it.
    umsync::launch(cs, grid, umsync_test::delayed_affine, slot, out, n, std::uint64_t{20'000'000});
    slot_free.record();
    CHECK(slot_free.recorded());
    // Later the loader refills the slot: without the wait this memset would land first.
    slot_free.wait();
    UMSYNC_CUDA_CHECK(cudaMemsetAsync(slot.data(), 0xFF, slot.size_bytes(), ls.view()));
    umsync::copy_sync_pageable(output, out, cs);
    ls.synchronize();
  }
  CHECK(wrong_affine(input, output) == 0);
}

TEST_CASE("transfer through a deferred edge rebinds the buffer to the destination, which frees it")
{
  umsync_test::memory_baseline const baseline;
  auto rng = umsync_test::make_rng();
  std::size_t const n = (std::size_t{1} << 20) + rng() % 1000;
  std::vector<u32> const input = umsync_test::random_words(rng, n);
  std::vector<u32> output(n, 0);
  {
    umsync::stream<loader> const ls;
    umsync::stream<compute> const cs;
    umsync::stream_edge loaded(ls, cs, umsync::deferred);
    umsync::stream_buffer<u32, loader> in(n, ls);
    umsync::stream_buffer<u32, loader> batch(n, ls);
    umsync::copy_sync_pageable(in, input, ls);
    UMSYNC_CUDA_CHECK(cudaMemsetAsync(batch.data(), 0xA5, batch.size_bytes(), ls.view()));  // poison
    umsync::launch(ls, grid, umsync_test::delayed_affine, in, batch, n, std::uint64_t{20'000'000});
    loaded.record();
    umsync::stream_buffer<u32, compute> on_compute = loaded.transfer(std::move(batch));
    CHECK(batch.data() == nullptr);  // NOLINT(bugprone-use-after-move): moved-from is empty by contract
    CHECK(on_compute.stream() == cs.view());
    umsync::copy_sync_pageable(output, on_compute, cs);
    ls.synchronize();
  }
  CHECK(wrong_affine(input, output) == 0);
}

TEST_CASE("waiting on a deferred edge that was never recorded throws usage_error and queues nothing")
{
  umsync_test::memory_baseline const baseline;
  umsync::stream<loader> const ls;
  umsync::stream<compute> const cs;
  umsync::stream_edge<compute, loader, umsync::edge_timing::deferred> never(cs, ls);  // the type spelled out
  CHECK_THROWS_AS(never.wait(), umsync::usage_error);
  umsync::stream_buffer<u32, compute> buffer(16, cs);
  CHECK_THROWS_AS(static_cast<void>(never.transfer(std::move(buffer))), umsync::usage_error);
  CHECK(buffer.data() != nullptr);  // NOLINT(bugprone-use-after-move): a refused transfer leaves it
  never.record();
  CHECK_NOTHROW(never.wait());
  cs.synchronize();
  ls.synchronize();
}
