// GPU tests of the UMSYNC_DEBUG usage checks that release builds cannot make: a moved-from
// buffer (the source of a transfer too) given to a launch, a copy or managed-memory advice, and
// host memory said to be pinned, device or managed that is in fact pageable. Each is refused
// with usage_error before anything is queued; the work around it still computes the right
// result. (The host-only parts: test/usage_debug_host_test.cpp.)
#include "support/gpu_test.hpp"
#include "support/kernels.cuh"
#include "support/managed_warm_up.cuh"

#include <umsync/umsync.hpp>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

static_assert(umsync::debug_build, "this file is built with UMSYNC_DEBUG");

namespace {
struct producer {};
struct consumer {};

using u32 = std::uint32_t;
constexpr umsync::launch_config grid{.grid = 132, .block = 256};
constexpr u32 poison = 0xFFFFFFFFU;

std::size_t count_not(std::vector<u32> const& words, u32 value)
{
  std::size_t wrong = 0;
  for (u32 const word : words) {
    wrong += word != value ? 1 : 0;
  }
  return wrong;
}

}  // namespace

TEST_CASE("a moved-from buffer and the source of a transfer are refused with usage_error before anything is queued")
{
  umsync_test::memory_baseline const baseline;
  auto rng = umsync_test::make_rng();
  std::size_t const n = std::size_t{1} << 16;
  std::vector<u32> const input = umsync_test::random_words(rng, n);
  u32 const key = static_cast<u32>(rng());
  std::vector<u32> output(n, 0);
  std::vector<u32> untouched(n, 0);
  {
    umsync::stream<producer> const ps;
    umsync::stream<consumer> const cs;
    umsync::stream_buffer<u32, producer> in(n, ps);
    umsync::stream_buffer<u32, producer> scratch(n, ps);  // what refused work would have written
    umsync::stream_buffer<u32, consumer> out(n, cs);
    UMSYNC_CUDA_CHECK(cudaMemsetAsync(scratch.data(), 0xFF, scratch.size_bytes(), ps.view()));
    UMSYNC_CUDA_CHECK(cudaMemsetAsync(out.data(), 0xFF, out.size_bytes(), cs.view()));
    umsync::copy_sync_pageable(in, input, ps);

    umsync::stream_edge to_consumer(ps, cs);
    auto in_on_consumer = to_consumer.transfer(std::move(in));
    // `in` now reads as 0 elements: release builds would hand the kernel a null pointer.
    CHECK(in.size() == 0);  // NOLINT(bugprone-use-after-move)
    try {
      umsync::launch(ps, grid, umsync_test::xor_with, in, scratch, n, key);
      FAIL("no usage_error");
    } catch (umsync::usage_error const& e) {
      CHECK(std::string(e.what()).starts_with("umsync: use of a moved-from umsync::stream_buffer"));
    }
    CHECK_THROWS_AS(umsync::copy_async(scratch, in, ps), umsync::usage_error);
    CHECK_THROWS_AS(umsync::copy_sync_pageable(untouched, in, ps), umsync::usage_error);
    using pool_buffer = umsync::stream_buffer<u32, producer>;
    CHECK_THROWS_AS(pool_buffer(in, ps), umsync::usage_error);  // a deep copy of it

    // A buffer moved from with std::move alone is refused alike; its new owner works.
    umsync::stream_buffer<u32, producer> moved(n, ps);
    umsync::stream_buffer<u32, producer> moved_owner(std::move(moved));
    CHECK_THROWS_AS(umsync::launch(ps, grid, umsync_test::xor_with, scratch, moved, n, key), umsync::usage_error);
    CHECK_NOTHROW(umsync::launch(ps, grid, umsync_test::xor_with, scratch, moved_owner, n, key));

    // A buffer made with zero elements is legitimately empty: launching it is accepted.
    umsync::stream_buffer<u32, producer> none(0, ps);
    CHECK_NOTHROW(umsync::launch(ps, grid, umsync_test::xor_with, none, none, std::size_t{0}, key));

    // Pinned memory and the device memory of a step buffer, moved from.
    umsync::pinned_buffer<u32> pinned(n);
    umsync::pinned_buffer<u32> pinned_owner(std::move(pinned));
    CHECK_THROWS_WITH_AS(umsync::copy_async(pinned, scratch, ps),
                         doctest::Contains("use of a moved-from umsync::pinned_buffer"), umsync::usage_error);
    umsync::step_buffer<u32, umsync::device_only> staged(n);
    umsync::step_buffer<u32, umsync::device_only> staged_owner(std::move(staged));
    CHECK_THROWS_WITH_AS(static_cast<void>(staged.device()),
                         doctest::Contains("use of a moved-from umsync::step_buffer"), umsync::usage_error);
    CHECK(staged_owner.device().size() == n);

    // The transferred buffer is what the consumer uses.
    umsync::launch(cs, grid, umsync_test::xor_with, in_on_consumer, out, n, key);
    umsync::copy_sync_pageable(output, out, cs);
    // scratch was only read since its poison (by the accepted launch into moved_owner): the
    // refused launch, which would have written it, never ran.
    umsync::copy_sync_pageable(untouched, scratch, ps);
  }
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < n; ++i) {
    wrong += output[i] != (input[i] ^ key) ? 1 : 0;
  }
  CHECK(wrong == 0);
  CHECK(count_not(untouched, poison) == 0);
}

TEST_CASE("moved-from managed memory is refused by launch, advice, prefetch and a batch")
{
  umsync_test::warm_up_managed();
  umsync_test::memory_baseline const baseline;
  int const device = umsync::current_device();
  REQUIRE(umsync::capabilities(device).managed_memory);
  auto rng = umsync_test::make_rng();
  std::size_t const n = std::size_t{1} << 16;
  u32 const key = static_cast<u32>(rng());
  std::vector<u32> const input = umsync_test::random_words(rng, n);
  {
    umsync::stream<> const s;
    umsync::managed_buffer<u32> weights(n);
    for (std::size_t i = 0; i < n; ++i) {
      weights[i] = input[i];
    }
    umsync::managed_buffer<u32> owner(std::move(weights));
    umsync::managed_buffer<u32> result(n);
    for (u32& word : result) {
      word = poison;
    }
    CHECK_THROWS_WITH_AS(umsync::launch(s, grid, umsync_test::xor_with, weights, result, n, key),
                         doctest::Contains("use of a moved-from umsync::managed_buffer"), umsync::usage_error);
    CHECK_THROWS_AS(umsync::advise(weights, umsync::advice::read_mostly{}), umsync::usage_error);
    CHECK_THROWS_AS(umsync::prefetch(weights, umsync::managed_location::device(device), s), umsync::usage_error);
    umsync::managed_batch batch;
    CHECK_THROWS_AS(batch.add(weights, umsync::managed_location::device(device)), umsync::usage_error);
    CHECK(batch.empty());
    umsync::step_buffer<u32, umsync::managed> step(n);
    umsync::step_buffer<u32, umsync::managed> step_owner(std::move(step));
    CHECK_THROWS_AS(static_cast<void>(step.device()), umsync::usage_error);
    s.synchronize();
    std::size_t written = 0;  // by a refused launch
    for (u32 const word : result) {
      written += word != poison ? 1 : 0;
    }
    CHECK(written == 0);
    // The owner computes as before.
    umsync::launch(s, grid, umsync_test::xor_with, owner, result, n, key);
    s.synchronize();
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < n; ++i) {
      wrong += result[i] != (input[i] ^ key) ? 1 : 0;
    }
    CHECK(wrong == 0);
  }
}

TEST_CASE("host memory said to be pinned or device memory that is pageable is refused; registered, it passes")
{
  umsync_test::memory_baseline const baseline;
  auto rng = umsync_test::make_rng();
  std::size_t const n = std::size_t{1} << 16;
  u32 const key = static_cast<u32>(rng());
  std::vector<u32> host = umsync_test::random_words(rng, n);  // pageable: std::vector
  std::vector<u32> const input = host;
  std::vector<u32> output(n, 0);
  bool const kernels_read_pageable = umsync::capabilities(umsync::current_device()).pageable_memory_access;
  {
    umsync::stream<> const s;
    umsync::stream_buffer<u32> device(n, s);
    umsync::stream_buffer<u32> result(n, s);
    UMSYNC_CUDA_CHECK(cudaMemsetAsync(device.data(), 0xFF, device.size_bytes(), s.view()));
    UMSYNC_CUDA_CHECK(cudaMemsetAsync(result.data(), 0xFF, result.size_bytes(), s.view()));

    auto const claimed_pinned = umsync::pinned_span<u32>::adopt(host.data(), n);  // a false promise
    try {
      umsync::copy_async(device, claimed_pinned, s);
      FAIL("no usage_error");
    } catch (umsync::usage_error const& e) {
      std::string const what = e.what();
      MESSAGE(what);
      CHECK(what.find("pageable host memory, not pinned host memory") != std::string::npos);
      CHECK(what.find("copy_sync_pageable") != std::string::npos);
    }
    CHECK_THROWS_AS(umsync::copy_async(claimed_pinned, device, s), umsync::usage_error);
    auto const claimed_device = umsync::device_span<u32>::adopt(host.data(), n);
    CHECK_THROWS_WITH_AS(umsync::copy_async(device, claimed_device, s),
                         doctest::Contains("pageable host memory, not device memory"), umsync::usage_error);
    auto const claimed_managed = umsync::managed_span<u32>::adopt(host.data(), n);
    CHECK_THROWS_WITH_AS(umsync::copy_async(claimed_managed, device, s),
                         doctest::Contains("pageable host memory, not managed memory"), umsync::usage_error);
    // A kernel on pageable memory: refused unless this device's kernels read pageable memory
    // (HMM or ATS), where the launch works as written and is not an error.
    if (kernels_read_pageable) {
      MESSAGE("this device reads pageable memory (cudaDevAttrPageableMemoryAccess): launches on it are accepted");
    } else {
      CHECK_THROWS_WITH_AS(umsync::launch(s, grid, umsync_test::xor_with, claimed_device, result, n, key),
                           doctest::Contains("pageable host memory, not device memory"), umsync::usage_error);
      CHECK_THROWS_AS(umsync::launch(s, grid, umsync_test::xor_with, claimed_pinned, result, n, key),
                      umsync::usage_error);
    }
    // Nothing refused reached the device.
    std::vector<u32> poisoned(n, 0);
    umsync::copy_sync_pageable(poisoned, device, s);
    CHECK(count_not(poisoned, poison) == 0);
    umsync::copy_sync_pageable(poisoned, result, s);
    CHECK(count_not(poisoned, poison) == 0);
    CHECK(host == input);

    // The same memory, registered: now it is pinned, and the same calls go through.
    {
      umsync::host_registration<u32> const registration{std::span<u32>(host)};
      umsync::copy_async(device, claimed_pinned, s);
      umsync::launch(s, grid, umsync_test::xor_with, device, result, n, key);
      umsync::copy_async(claimed_pinned, result, s);
      s.synchronize();
    }
    output = host;
  }
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < n; ++i) {
    wrong += output[i] != (input[i] ^ key) ? 1 : 0;
  }
  CHECK(wrong == 0);
}
