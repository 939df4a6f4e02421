// GPU tests of umsync/memory/managed_buffer.hpp and umsync/memory/managed_batch.hpp: advice and
// prefetch read back through cudaMemRangeGetAttribute, random data through every path, memory
// back to its baseline. Every test stays far below 256 MiB of managed memory.
#include "support/gpu_test.hpp"
#include "support/managed_warm_up.cuh"

#include <umsync/device.hpp>
#include <umsync/launch.hpp>
#include <umsync/memory/copy.hpp>
#include <umsync/memory/managed_batch.hpp>
#include <umsync/memory/managed_buffer.hpp>
#include <umsync/memory/pinned_buffer.hpp>
#include <umsync/stream.hpp>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <thread>
#include <utility>
#include <vector>

namespace {
using u32 = std::uint32_t;
using umsync::managed_location;
using umsync_test::affine_in_place;
using umsync_test::concurrent_managed_access;
using umsync_test::trim_default_managed_pool;
using umsync_test::warm_up_managed;
constexpr umsync::launch_config grid{.grid = 132, .block = 256};

__global__ void fill_index(u32* data, std::size_t n, u32 key)
{
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
    data[i] = static_cast<u32>(i) ^ key;
  }
}

}  // namespace

TEST_CASE("advice is in force as cudaMemRangeGetAttribute reads it, and unsets remove it")
{
  warm_up_managed();
  umsync_test::memory_baseline const baseline;
  int const device = umsync::current_device();
  umsync::managed_buffer<u32> buffer(std::size_t{1} << 20);  // 4 MiB
  // A fresh allocation has no advice (CUDA 13 adds none by default).
  CHECK_FALSE(buffer.read_mostly());
  CHECK_FALSE(buffer.preferred_location().has_value());
  CHECK_FALSE(buffer.last_prefetch_location().has_value());
  CHECK_FALSE(buffer.accessed_by(device));

  buffer.advise(umsync::advice::read_mostly{});
  CHECK(buffer.read_mostly());
  buffer.unadvise(umsync::advice::read_mostly{});
  CHECK_FALSE(buffer.read_mostly());

  buffer.advise(umsync::advice::preferred_location{managed_location::device(device)});
  REQUIRE(buffer.preferred_location().has_value());
  CHECK(*buffer.preferred_location() == managed_location::device(device));
  buffer.advise(umsync::advice::preferred_location{managed_location::host()});
  REQUIRE(buffer.preferred_location().has_value());
  CHECK(buffer.preferred_location()->is_host());
  buffer.unadvise(umsync::advice::preferred_location{managed_location::host()});
  CHECK_FALSE(buffer.preferred_location().has_value());

  buffer.advise(umsync::advice::accessed_by{managed_location::device(device)});
  CHECK(buffer.accessed_by(device));
  buffer.unadvise(umsync::advice::accessed_by{managed_location::device(device)});
  CHECK_FALSE(buffer.accessed_by(device));
  CHECK_NOTHROW(buffer.advise(umsync::advice::accessed_by{managed_location::host()}));
  CHECK_NOTHROW(buffer.unadvise(umsync::advice::accessed_by{managed_location::host()}));

  // The free functions on a span and on the buffer give the same advice.
  umsync::advise(buffer.span(), umsync::advice::read_mostly{});
  CHECK(buffer.read_mostly());
  umsync::unadvise(buffer, umsync::advice::read_mostly{});
  CHECK_FALSE(buffer.read_mostly());
}

TEST_CASE("prefetch to the device and back: last prefetch location and random data round-trip")
{
  warm_up_managed();
  umsync_test::memory_baseline const baseline;
  if (!concurrent_managed_access()) {
    MESSAGE("no concurrent managed access: prefetch to a device is refused by the runtime");
    return;
  }
  auto rng = umsync_test::make_rng();
  int const device = umsync::current_device();
  std::size_t const n = (std::size_t{1} << 22) + rng() % 4096;  // about 16 MiB
  u32 const a = static_cast<u32>(rng()) | 1U;
  u32 const b = static_cast<u32>(rng());
  std::vector<u32> const input = umsync_test::random_words(rng, n);
  umsync::stream<> const s;
  umsync::managed_buffer<u32> buffer(n);
  std::copy(input.begin(), input.end(), buffer.begin());

  buffer.prefetch(managed_location::device(device), s);
  REQUIRE(buffer.last_prefetch_location().has_value());
  CHECK(*buffer.last_prefetch_location() == managed_location::device(device));
  umsync::launch(s, grid, affine_in_place, buffer.span(), n, a, b);
  buffer.prefetch(managed_location::host(), s);
  s.synchronize();
  REQUIRE(buffer.last_prefetch_location().has_value());
  CHECK(buffer.last_prefetch_location()->is_host());
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < n; ++i) {
    wrong += buffer[i] != a * input[i] + b ? 1 : 0;
  }
  CHECK(wrong == 0);

  // A range: the first half only, and a range past the end is refused before CUDA sees it.
  buffer.prefetch(0, n / 2, managed_location::device(device), s);
  CHECK_THROWS_AS(buffer.prefetch(n / 2, n, managed_location::device(device), s), umsync::out_of_range);
  CHECK_FALSE(buffer.last_prefetch_location().has_value());  // the halves now differ
  s.synchronize();
}

TEST_CASE("batch prefetch places each buffer where asked; discard then overwrite keeps data right")
{
  warm_up_managed();
  umsync_test::memory_baseline const baseline;
  if (!umsync::batch_managed_calls_supported()) {
    umsync::managed_batch batch;
    umsync::managed_buffer<u32> one(16);
    batch.add(one, managed_location::host());
    umsync::stream<> const s;
    CHECK_THROWS_AS(batch.prefetch(s), umsync::managed_memory_unsupported);
    return;
  }
  auto rng = umsync_test::make_rng();
  int const device = umsync::current_device();
  umsync::stream<> const s;
  std::size_t const sizes[] = {(std::size_t{1} << 20) + 17, std::size_t{1} << 18, (std::size_t{1} << 21) + 5};
  umsync::managed_buffer<u32> first(sizes[0]);
  umsync::managed_buffer<u32> second(sizes[1]);
  umsync::managed_buffer<u32> third(sizes[2]);
  std::vector<u32> const in_first = umsync_test::random_words(rng, sizes[0]);
  std::vector<u32> const in_second = umsync_test::random_words(rng, sizes[1]);
  std::copy(in_first.begin(), in_first.end(), first.begin());
  std::copy(in_second.begin(), in_second.end(), second.begin());

  umsync::managed_batch batch;
  batch.add(first, managed_location::device(device))
      .add(third, managed_location::host())
      .add(second, managed_location::device(device));
  CHECK(batch.size() == 3);
  batch.prefetch(s);
  s.synchronize();
  REQUIRE(first.last_prefetch_location().has_value());
  REQUIRE(second.last_prefetch_location().has_value());
  REQUIRE(third.last_prefetch_location().has_value());
  CHECK(*first.last_prefetch_location() == managed_location::device(device));
  CHECK(*second.last_prefetch_location() == managed_location::device(device));
  CHECK(third.last_prefetch_location()->is_host());

  u32 const key = static_cast<u32>(rng());
  umsync::launch(s, grid, affine_in_place, first.span(), first.size(), u32{5}, u32{7});
  umsync::launch(s, grid, affine_in_place, second.span(), second.size(), u32{9}, key);
  // third's contents are not needed: discard, place on the device, overwrite there.
  umsync::managed_batch scratch;
  scratch.add(third, managed_location::device(device));
  scratch.discard_and_prefetch(s);
  umsync::launch(s, grid, fill_index, third.span(), third.size(), key);
  umsync::managed_batch back;
  back.add(first, managed_location::host()).add(second, managed_location::host()).add(third, managed_location::host());
  back.prefetch(s);
  s.synchronize();
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < sizes[0]; ++i) {
    wrong += first[i] != 5U * in_first[i] + 7U ? 1 : 0;
  }
  for (std::size_t i = 0; i < sizes[1]; ++i) {
    wrong += second[i] != 9U * in_second[i] + key ? 1 : 0;
  }
  for (std::size_t i = 0; i < sizes[2]; ++i) {
    wrong += third[i] != (static_cast<u32>(i) ^ key) ? 1 : 0;
  }
  CHECK(wrong == 0);

  // Plain discard, then a full overwrite on the device.
  umsync::managed_batch drop;
  drop.add(second, managed_location::host());
  drop.discard(s);
  umsync::launch(s, grid, fill_index, second.span(), second.size(), ~key);
  s.synchronize();
  wrong = 0;
  for (std::size_t i = 0; i < sizes[1]; ++i) {
    wrong += second[i] != (static_cast<u32>(i) ^ ~key) ? 1 : 0;
  }
  CHECK(wrong == 0);

  // A one-range batch takes cudaMemPrefetchAsync: same placement, contents kept, same rules.
  umsync::managed_batch single;
  single.add(first, managed_location::device(device));
  single.prefetch(s);
  s.synchronize();
  REQUIRE(first.last_prefetch_location().has_value());
  CHECK(*first.last_prefetch_location() == managed_location::device(device));
  wrong = 0;
  for (std::size_t i = 0; i < sizes[0]; ++i) {
    wrong += first[i] != 5U * in_first[i] + 7U ? 1 : 0;
  }
  CHECK(wrong == 0);

  // The runtime refuses the legacy stream for batch calls: umsync says so first.
  CHECK_THROWS_AS(batch.prefetch(umsync::legacy_default_stream()), umsync::usage_error);
  CHECK_THROWS_AS(single.prefetch(umsync::legacy_default_stream()), umsync::usage_error);
  umsync::managed_batch const nothing;
  CHECK_NOTHROW(nothing.prefetch(s));
}

TEST_CASE("host-attached allocation, then attached to one stream: the stream's kernel sees the host's data")
{
  warm_up_managed();
  umsync_test::memory_baseline const baseline;
  auto rng = umsync_test::make_rng();
  std::size_t const n = (std::size_t{1} << 16) + rng() % 100;
  std::vector<u32> const input = umsync_test::random_words(rng, n);
  umsync::stream<> const s;
  umsync::managed_buffer<u32> buffer(n, umsync::managed_attach::host);
  std::copy(input.begin(), input.end(), buffer.begin());
  buffer.attach(s, umsync::stream_attach::single);
  s.synchronize();  // the attachment takes effect in stream order
  umsync::launch(s, grid, affine_in_place, buffer.span(), n, u32{3}, u32{11});
  s.synchronize();
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < n; ++i) {
    wrong += buffer[i] != 3U * input[i] + 11U ? 1 : 0;
  }
  CHECK(wrong == 0);
  buffer.attach(s, umsync::stream_attach::global);
  s.synchronize();
}

TEST_CASE("stream-ordered allocation from the default managed pool is managed memory")
{
  warm_up_managed();
  umsync_test::memory_baseline const baseline;
  umsync::stream<> const s;
  auto rng = umsync_test::make_rng();
  std::size_t const n = (std::size_t{1} << 20) + rng() % 100;
  std::vector<u32> const input = umsync_test::random_words(rng, n);
  {
    umsync::managed_buffer<u32> pooled(n, s);
    CHECK(pooled.from_pool());
    s.synchronize();  // the host may touch it once the stream has reached the allocation
    cudaPointerAttributes attributes{};
    UMSYNC_CUDA_CHECK(cudaPointerGetAttributes(&attributes, pooled.data()));
    CHECK(attributes.type == cudaMemoryTypeManaged);
    // In through a copy, out through host reads: initcheck does not see host writes into
    // pool-allocated managed memory and reported every element as uninitialized (H200, 2026-12-02).
    umsync::copy_sync_pageable(pooled.span(), input, s);
    if (concurrent_managed_access()) {
      pooled.prefetch(managed_location::device(umsync::current_device()), s);
    }
    umsync::launch(s, grid, affine_in_place, pooled.span(), n, u32{7}, u32{2});
    s.synchronize();
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < n; ++i) {
      wrong += pooled[i] != 7U * input[i] + 2U ? 1 : 0;
    }
    CHECK(wrong == 0);
    CHECK_THROWS_AS(pooled.attach(s, umsync::stream_attach::single), umsync::usage_error);
  }
  s.synchronize();
  trim_default_managed_pool();
}

TEST_CASE("typed copies take a managed_buffer through its span: pinned in, kernel, pinned out")
{
  warm_up_managed();
  umsync_test::memory_baseline const baseline;
  auto rng = umsync_test::make_rng();
  std::size_t const n = (std::size_t{1} << 18) + rng() % 100;
  umsync::stream<> const s;
  umsync::pinned_buffer<u32> in(n);
  umsync::pinned_buffer<u32> out(n);
  for (auto& x : in) {
    x = static_cast<u32>(rng());
  }
  for (auto& x : out) {
    x = 0xDEADBEEFU;  // poison
  }
  umsync::managed_buffer<u32> buffer(n);
  umsync::copy_async(buffer.span(), in, s);
  umsync::launch(s, grid, affine_in_place, buffer.span(), n, u32{13}, u32{17});
  umsync::copy_async(out, std::as_const(buffer).span(), s);
  s.synchronize();
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < n; ++i) {
    wrong += out[i] != 13U * in[i] + 17U ? 1 : 0;
  }
  CHECK(wrong == 0);
}

TEST_CASE("size 0 allocates nothing and has no advice; overflow is length_error; moves empty the source")
{
  warm_up_managed();
  umsync_test::memory_baseline const baseline;
  umsync::managed_buffer<double> empty(0);
  CHECK(empty.data() == nullptr);
  CHECK(empty.empty());
  CHECK_FALSE(empty.read_mostly());
  CHECK_FALSE(empty.preferred_location().has_value());
  CHECK_NOTHROW(empty.advise(umsync::advice::read_mostly{}));
  CHECK_THROWS_AS(umsync::managed_buffer<double>(std::numeric_limits<std::size_t>::max() / 4), umsync::length_error);
  umsync::managed_buffer<double> a(64);
  double* const p = a.data();
  umsync::managed_buffer<double> b = std::move(a);
  CHECK(b.data() == p);
  CHECK(a.data() == nullptr);  // NOLINT(bugprone-use-after-move)
  a = std::move(b);
  CHECK(a.data() == p);
  CHECK(a.size() == 64);
}
