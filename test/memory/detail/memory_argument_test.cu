// GPU tests of umsync/memory/detail/memory_argument.hpp: nullptr for an optional pointer parameter is
// no memory and passes to a kernel and to a library call's callable unchecked; memory in the
// same position is still checked and used. Fresh random inputs, outputs poisoned.
#include "support/gpu_test.hpp"

#include <umsync/launch.hpp>
#include <umsync/library_call.hpp>
#include <umsync/memory/copy.hpp>
#include <umsync/memory/stream_buffer.hpp>
#include <umsync/stream.hpp>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace {

using u32 = std::uint32_t;
struct compute {};

/// out[i] = in[i] ^ (mask ? mask[i] : key): `mask` is optional, as llm.c's bias pointers are.
__global__ void xor_with_optional(u32 const* in, u32 const* mask, u32* out, std::size_t n, u32 key)
{
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x) {
    out[i] = in[i] ^ (mask != nullptr ? mask[i] : key);
  }
}

umsync::launch_config const grid{.grid = 132, .block = 256};

}  // namespace

TEST_CASE("launch: nullptr for an optional pointer parameter launches; memory there is still used")
{
  umsync_test::memory_baseline const baseline;
  auto rng = umsync_test::make_rng();
  std::size_t const n = (std::size_t{1} << 16) + rng() % 1000;
  u32 const key = static_cast<u32>(rng());
  std::vector<u32> const input = umsync_test::random_words(rng, n);
  std::vector<u32> const mask = umsync_test::random_words(rng, n);
  std::vector<u32> without(n, 0);
  std::vector<u32> with(n, 0);
  {
    umsync::stream<compute> const s;
    umsync::stream_buffer<u32, compute> in(n, s);
    umsync::stream_buffer<u32, compute> masks(n, s);
    umsync::stream_buffer<u32, compute> out(n, s);
    umsync::copy_sync_pageable(in, input, s);
    umsync::copy_sync_pageable(masks, mask, s);
    UMSYNC_CUDA_CHECK(cudaMemsetAsync(out.data(), 0xA5, out.size_bytes(), s.get()));  // poison
    umsync::launch(s, grid, xor_with_optional, in, nullptr, out, n, key);
    umsync_test::check_launch("xor_with_optional (nullptr mask)");
    umsync::copy_sync_pageable(without, out, s);
    UMSYNC_CUDA_CHECK(cudaMemsetAsync(out.data(), 0xA5, out.size_bytes(), s.get()));  // poison again
    umsync::launch(s, grid, xor_with_optional, in, masks, out, n, key);
    umsync::copy_sync_pageable(with, out, s);
  }
  std::size_t wrong_without = 0;
  std::size_t wrong_with = 0;
  for (std::size_t i = 0; i < n; ++i) {
    wrong_without += without[i] != (input[i] ^ key) ? 1 : 0;
    wrong_with += with[i] != (input[i] ^ mask[i]) ? 1 : 0;
  }
  CHECK(wrong_without == 0);
  CHECK(wrong_with == 0);
}

TEST_CASE("library_call: nullptr for an optional pointer parameter reaches the callable as a null pointer")
{
  umsync_test::memory_baseline const baseline;
  auto rng = umsync_test::make_rng();
  std::size_t const n = 4096 + rng() % 1000;
  std::vector<u32> const input = umsync_test::random_words(rng, n);
  std::vector<u32> output(n, 0);
  {
    umsync::stream<compute> const s;
    umsync::stream_buffer<u32, compute> in(n, s);
    umsync::stream_buffer<u32, compute> out(n, s);
    umsync::copy_sync_pageable(in, input, s);
    UMSYNC_CUDA_CHECK(cudaMemsetAsync(out.data(), 0xA5, out.size_bytes(), s.get()));  // poison
    // Copies `from`, or zeroes `to` when there is no `from`.
    auto const copy_or_zero = [](cudaStream_t raw, u32* to, u32 const* from, std::size_t bytes) {
      return from == nullptr ? cudaMemsetAsync(to, 0, bytes, raw)
                             : cudaMemcpyAsync(to, from, bytes, cudaMemcpyDeviceToDevice, raw);
    };
    CHECK(umsync::library_call(s, copy_or_zero, out, nullptr, out.size_bytes()) == cudaSuccess);
    umsync::copy_sync_pageable(output, out, s);
    CHECK(output == std::vector<u32>(n, 0));
    UMSYNC_CUDA_CHECK(cudaMemsetAsync(out.data(), 0xA5, out.size_bytes(), s.get()));  // poison again
    CHECK(umsync::library_call(s, copy_or_zero, out, in, out.size_bytes()) == cudaSuccess);
    umsync::copy_sync_pageable(output, out, s);
  }
  CHECK(output == input);
}
