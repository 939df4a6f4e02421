// GPU tests of umsync/memory/memory_range.hpp: a user's own memory types (support/user_memory.hpp)
// go through umsync::launch and the copies as umsync's buffers do, with fresh random inputs and
// poisoned outputs. (The collective is in nccl/collectives_test.cu.)
#include "support/gpu_test.hpp"
#include "support/kernels.cuh"
#include "support/user_memory.hpp"

#include <umsync/launch.hpp>
#include <umsync/memory/copy.hpp>
#include <umsync/memory/pinned_buffer.hpp>
#include <umsync/memory/stream_buffer.hpp>
#include <umsync/stream.hpp>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace {

using u32 = std::uint32_t;
struct compute {};

/// cudaMalloc memory owned by the test, released even when a CHECK throws.
struct device_words {
  explicit device_words(std::size_t n) : count(n) { UMSYNC_CUDA_CHECK(cudaMalloc(&pointer, n * sizeof(u32))); }
  device_words(device_words const&) = delete;
  device_words& operator=(device_words const&) = delete;
  ~device_words() { umsync::detail::report_in_destructor(cudaFree(pointer), "cudaFree (test memory)"); }
  u32* pointer = nullptr;
  std::size_t count;
};

umsync::launch_config const grid{.grid = 132, .block = 256};

}  // namespace

TEST_CASE("a user's device memory takes part in launch, copy_async and copy_sync_pageable")
{
  umsync_test::memory_baseline const baseline;
  auto rng = umsync_test::make_rng();
  std::size_t const n = (std::size_t{1} << 18) + rng() % 1000;
  u32 const key = static_cast<u32>(rng());
  std::vector<u32> const input = umsync_test::random_words(rng, n);
  std::vector<u32> output(n, 0);
  {
    umsync::stream<compute> const s;
    device_words in_memory(n);
    device_words out_memory(n);
    userlib::device_array<u32> in{in_memory.pointer, n};
    userlib::stream_array<u32, compute> out{out_memory.pointer, n};
    umsync::pinned_buffer<u32> staging(n);
    std::copy(input.begin(), input.end(), staging.begin());
    umsync::copy_async(in, staging, s);                                               // pinned -> user's
    UMSYNC_CUDA_CHECK(cudaMemsetAsync(out.pointer, 0xA5, n * sizeof(u32), s.get()));  // poison
    userlib::device_array<u32> const& read_only = in;
    umsync::launch(s, grid, umsync_test::xor_with, read_only, out, n, key);  // span of const -> u32 const*
    umsync::stream_buffer<u32, compute> pooled(n, s);
    umsync::copy_async(pooled, out, s);             // user's (tagged) -> umsync's, same tag
    umsync::copy_sync_pageable(output, pooled, s);  // and back to the host
  }
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < n; ++i) {
    wrong += output[i] != (input[i] ^ key) ? 1 : 0;
  }
  CHECK(wrong == 0);
}

TEST_CASE("a user's pageable host memory goes through copy_sync_pageable")
{
  umsync_test::memory_baseline const baseline;
  auto rng = umsync_test::make_rng();
  std::size_t const n = 4096 + rng() % 1000;
  std::vector<u32> input = umsync_test::random_words(rng, n);
  std::vector<u32> output(n, 0xFFFFFFFFU);
  {
    umsync::stream<compute> const s;
    umsync::stream_buffer<u32, compute> device(n, s);
    userlib::host_array<u32> from{input.data(), n};
    userlib::host_array<u32> to{output.data(), n};
    umsync::copy_sync_pageable(device, from, s);
    umsync::copy_sync_pageable(to, device, s);
  }
  CHECK(output == input);
}
