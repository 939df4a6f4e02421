// GPU tests of umsync/memory/pinned_buffer.hpp: pinned_buffer is page-locked host memory the
// runtime knows, host_registration page-locks existing memory for its lifetime only, both take
// part in async copies; running out is umsync::bad_alloc. Its host tests:
// memory/pinned_buffer_host_test.cpp; moved-from buffers: detail/unique_handle_test.cu.
#include "support/gpu_test.hpp"

#include <umsync/memory/copy.hpp>
#include <umsync/memory/pinned_buffer.hpp>
#include <umsync/memory/stream_buffer.hpp>
#include <umsync/stream.hpp>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace {
using u32 = std::uint32_t;

cudaMemoryType memory_type_of(void const* address)
{
  cudaPointerAttributes attributes{};
  UMSYNC_CUDA_CHECK(cudaPointerGetAttributes(&attributes, address));
  return attributes.type;
}
}  // namespace

TEST_CASE("pinned registration of existing host memory")
{
  umsync_test::memory_baseline const baseline;
  umsync::stream<> const s;
  std::vector<int> host(1 << 16, 42);
  std::vector<int> back(host.size(), 0);
  {
    umsync::host_registration<int> pinned_in(host);
    umsync::host_registration<int> pinned_back(back);
    umsync::stream_buffer<int> device(host.size(), s);
    umsync::copy_async(device, pinned_in.span(), s);
    umsync::copy_async(pinned_back.span(), device, s);
    s.synchronize();
  }
  CHECK(back == host);
}

TEST_CASE("a pinned_buffer is page-locked host memory: the runtime says so, and the host writes and reads it")
{
  umsync_test::memory_baseline const baseline;
  auto rng = umsync_test::make_rng();
  std::size_t const n = (std::size_t{1} << 16) + (rng() % 1000);
  std::vector<u32> const expected = umsync_test::random_words(rng, n);
  umsync::pinned_buffer<u32> pinned(n);
  REQUIRE(pinned.size() == n);
  CHECK(pinned.size_bytes() == n * sizeof(u32));
  CHECK_FALSE(pinned.empty());
  CHECK(memory_type_of(pinned.data()) == cudaMemoryTypeHost);
  CHECK(memory_type_of(pinned.data() + n - 1) == cudaMemoryTypeHost);  // the whole range
  for (std::size_t i = 0; i < n; ++i) {
    pinned[i] = expected[i];
  }
  CHECK(pinned.end() - pinned.begin() == static_cast<std::ptrdiff_t>(n));
  CHECK(pinned.span().data() == pinned.data());
  CHECK(pinned.span().size() == n);
  CHECK(std::vector<u32>(pinned.begin(), pinned.end()) == expected);
}

TEST_CASE("a host_registration page-locks existing memory for its lifetime only")
{
  umsync_test::memory_baseline const baseline;
  auto rng = umsync_test::make_rng();
  std::size_t const n = (std::size_t{1} << 16) + (rng() % 1000);
  std::vector<u32> host = umsync_test::random_words(rng, n);
  std::vector<u32> const expected = host;
  CHECK(memory_type_of(host.data()) == cudaMemoryTypeUnregistered);
  {
    umsync::host_registration<u32> const registration{std::span<u32>(host)};
    CHECK(memory_type_of(host.data()) == cudaMemoryTypeHost);
    CHECK(registration.span().data() == host.data());
    CHECK(registration.span().size() == n);
  }
  CHECK(memory_type_of(host.data()) == cudaMemoryTypeUnregistered);  // unregistered by the destructor
  CHECK(host == expected);                                           // and the memory left as it was
}

TEST_CASE("a host_registration of const memory is a read-only source of async copies")
{
  umsync_test::memory_baseline const baseline;
  auto rng = umsync_test::make_rng();
  std::size_t const n = (std::size_t{1} << 16) + (rng() % 1000);
  std::vector<u32> const host = umsync_test::random_words(rng, n);
  umsync::pinned_buffer<u32> back(n);
  for (auto& x : back) {
    x = 0xDEADBEEF;
  }
  umsync::stream<> const s;
  {
    umsync::host_registration<u32 const> const registration{std::span<u32 const>(host)};
    umsync::stream_buffer<u32> device(n, s);
    UMSYNC_CUDA_CHECK(cudaMemsetAsync(device.data(), 0xA5, device.size_bytes(), s.view()));
    umsync::copy_async(device, registration, s);
    umsync::copy_async(back, device, s);
    s.synchronize();
  }
  CHECK(std::vector<u32>(back.begin(), back.end()) == host);
}

TEST_CASE("too much pinned memory is umsync::bad_alloc naming cudaMallocHost, and later buffers still allocate")
{
  umsync_test::memory_baseline const baseline;
  std::size_t const huge = std::size_t{1} << 50;  // 1 PiB
  try {
    umsync::pinned_buffer<std::byte> const buffer(huge);
    FAIL("no throw");
  } catch (umsync::bad_alloc const& e) {
    std::string const what = e.what();
    MESSAGE(what);
    CHECK(e.requested_bytes() == huge);
    CHECK(what.find("cudaMallocHost") != std::string::npos);
  }
  umsync::pinned_buffer<int> const fine(1024);
  CHECK(fine.size() == 1024);
}
