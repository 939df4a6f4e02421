// The conformance suite for stream-ordered resources (support/resource_conformance.hpp) on a
// device, over every conforming resource: memory allocated on a stream is aligned, usable by a
// kernel on that stream and freed on it; the synchronous pair's memory is usable on any stream at
// return; memory is back at the end of every case. memory/resource_conformance_host_test.cpp has the
// cases that need no device. (Skipped, with the reason, without a GPU: support/gpu_main.cpp.)
#include "support/gpu_test.hpp"
#include "support/resource_conformance.hpp"

#include <umsync/stream.hpp>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace {

__global__ void write_pattern(std::uint32_t* out, std::size_t n, std::uint32_t seed)
{
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
    out[i] = seed ^ static_cast<std::uint32_t>(i * 2654435761U);
  }
}

/// Writes a pattern into `memory` on `stream`, reads it back and counts the wrong words.
std::size_t wrong_words(void* memory, std::size_t n, std::uint32_t seed, cudaStream_t stream)
{
  std::vector<std::uint32_t> back(n, 0xDEADBEEF);  // poison
  write_pattern<<<132, 256, 0, stream>>>(static_cast<std::uint32_t*>(memory), n, seed);
  umsync_test::check_launch("write_pattern");
  UMSYNC_CUDA_CHECK(cudaMemcpyAsync(back.data(), memory, n * sizeof(std::uint32_t), cudaMemcpyDeviceToHost, stream));
  UMSYNC_CUDA_CHECK(cudaStreamSynchronize(stream));
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < n; ++i) {
    wrong += back[i] != (seed ^ static_cast<std::uint32_t>(i * 2654435761U)) ? 1 : 0;
  }
  return wrong;
}

}  // namespace

TEST_CASE_TEMPLATE("conformance: allocate on a stream, use there, free there", F, UMSYNC_TEST_CONFORMING_RESOURCES)
{
  umsync_test::memory_baseline const baseline;
  auto rng = umsync_test::make_rng();
  umsync::stream<> const s;
  {
    F fixture(true);
    auto& resource = fixture.resource();
    for (std::size_t const alignment : {std::size_t{1}, std::size_t{64}, std::size_t{256}}) {
      CAPTURE(alignment);
      std::size_t const n = (std::size_t{1} << 16) + (rng() % 1000);
      void* const memory = umsync::detail::allocate_from(resource, s, n * sizeof(std::uint32_t), alignment);
      REQUIRE(memory != nullptr);
      CHECK(reinterpret_cast<std::uintptr_t>(memory) % alignment == 0);
      CHECK(wrong_words(memory, n, static_cast<std::uint32_t>(rng()), s.get()) == 0);
      umsync::detail::deallocate_to(resource, s, memory, n * sizeof(std::uint32_t), alignment);
    }
    CHECK(umsync::detail::allocate_from(resource, s, 0, 256) == nullptr);
    umsync::detail::deallocate_to(resource, s, nullptr, 0, 256);
    s.synchronize();
  }
}

TEST_CASE_TEMPLATE("conformance: synchronous memory is usable on any stream at return", F,
                   UMSYNC_TEST_CONFORMING_RESOURCES)
{
  umsync_test::memory_baseline const baseline;
  auto rng = umsync_test::make_rng();
  umsync::stream<> const other;
  {
    F fixture(true);
    auto& resource = fixture.resource();
    std::size_t const n = (std::size_t{1} << 16) + (rng() % 1000);
    void* const memory = umsync_test::allocate_synchronously(resource, n * sizeof(std::uint32_t), 256);
    REQUIRE(memory != nullptr);
    CHECK(reinterpret_cast<std::uintptr_t>(memory) % 256 == 0);
    CHECK(wrong_words(memory, n, static_cast<std::uint32_t>(rng()), other.get()) == 0);  // synchronized above
    umsync_test::deallocate_synchronously(resource, memory, n * sizeof(std::uint32_t), 256);
    CHECK(umsync_test::allocate_synchronously(resource, 0, 256) == nullptr);
  }
}
