// GPU tests of umsync/memory/stream_buffer.hpp on one stream (its round trip also goes through
// copy.hpp, pinned_buffer.hpp and launch.hpp; their own tests: memory/copy_test.cu,
// memory/pinned_buffer_test.cu).
#include "support/gpu_test.hpp"

#include <umsync/launch.hpp>
#include <umsync/memory/copy.hpp>
#include <umsync/memory/pinned_buffer.hpp>
#include <umsync/memory/stream_buffer.hpp>
#include <umsync/stream.hpp>

#include <cstdint>
#include <limits>
#include <new>
#include <stdexcept>
#include <vector>

namespace {
struct compute {};

__global__ void affine(std::uint32_t const* in, std::uint32_t* out, std::size_t n, std::uint32_t a, std::uint32_t b)
{
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
    out[i] = a * in[i] + b;
  }
}
}  // namespace

TEST_CASE("pinned in, stream buffers and a typed launch, pinned out: random data round-trips")
{
  umsync_test::memory_baseline const baseline;
  auto rng = umsync_test::make_rng();
  std::size_t const n = (std::size_t{1} << 20) + (rng() % 1000);
  std::uint32_t const a = static_cast<std::uint32_t>(rng()) | 1U;
  std::uint32_t const b = static_cast<std::uint32_t>(rng());
  umsync::stream<compute> const s;
  umsync::pinned_buffer<std::uint32_t> host_in(n);
  umsync::pinned_buffer<std::uint32_t> host_out(n);
  for (auto& x : host_in) {
    x = static_cast<std::uint32_t>(rng());
  }
  for (auto& x : host_out) {
    x = 0xDEADBEEF;  // poison
  }
  {
    umsync::stream_buffer<std::uint32_t, compute> in(n, s);
    umsync::stream_buffer<std::uint32_t, compute> out(n, s);
    UMSYNC_CUDA_CHECK(cudaMemsetAsync(out.data(), 0xA5, out.size_bytes(), s.view()));
    umsync::copy_async(in, host_in, s);
    umsync::launch(s, {.grid = 264, .block = 256}, affine, in, out, n, a, b);
    umsync::copy_async(host_out, out, s);
    s.synchronize();
  }
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < n; ++i) {
    wrong += host_out[i] != a * host_in[i] + b ? 1 : 0;
  }
  CHECK(wrong == 0);
}

TEST_CASE("a deep copy names its stream and copies the contents")
{
  umsync_test::memory_baseline const baseline;
  umsync::stream<compute> const s;
  std::vector<int> host(1000);
  for (std::size_t i = 0; i < host.size(); ++i) {
    host[i] = static_cast<int>(i * 7);
  }
  umsync::stream_buffer<int, compute> original(host.size(), s);
  umsync::copy_sync_pageable(original, host, s);
  umsync::stream_buffer<int, compute> copy(original, s);
  std::vector<int> back(host.size(), -1);
  umsync::copy_sync_pageable(back, copy, s);
  CHECK(back == host);
  CHECK(copy.data() != original.data());
}

TEST_CASE("size 0 allocates nothing; moves leave the source empty")
{
  umsync_test::memory_baseline const baseline;
  umsync::stream<> const s;
  umsync::stream_buffer<double> empty(0, s);
  CHECK(empty.data() == nullptr);
  CHECK(empty.empty());
  umsync::stream_buffer<double> a(16, s);
  double* const p = a.data();
  umsync::stream_buffer<double> b = std::move(a);
  CHECK(b.data() == p);
  CHECK(a.data() == nullptr);  // NOLINT(bugprone-use-after-move)
  CHECK(a.size() == 0);        // NOLINT(bugprone-use-after-move)
  a = std::move(b);
  CHECK(a.data() == p);
}

TEST_CASE("bad sizes: overflow is length_error, too much is umsync::bad_alloc, and the pool stays usable")
{
  umsync_test::memory_baseline const baseline;
  umsync::stream<> const s;
  umsync::memory_pool pool;
  CHECK_THROWS_AS(umsync::stream_buffer<double>(std::numeric_limits<std::size_t>::max() / 4, s, pool),
                  umsync::length_error);
  try {
    umsync::stream_buffer<std::byte> huge(std::size_t{1} << 50, s, pool);  // 1 PiB
    FAIL("no throw");
  } catch (umsync::bad_alloc const& e) {
    std::string const what = e.what();
    MESSAGE(what);
    CHECK(e.requested_bytes() == (std::size_t{1} << 50));
    CHECK(what.find("reserved") != std::string::npos);
  }
  umsync::stream_buffer<int> fine(1024, s, pool);
  UMSYNC_CUDA_CHECK(cudaMemsetAsync(fine.data(), 0, fine.size_bytes(), s.view()));
  s.synchronize();
  CHECK(fine.size() == 1024);
}
