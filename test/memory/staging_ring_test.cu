// GPU tests of umsync/memory/staging_ring.hpp: slot reuse waits for the copy that last read
// the slot (the device sees every round's data although the host refills each slot while the
// stream is held busy), and every misuse is a typed exception.
#include "support/gpu_test.hpp"
#include "support/kernels.cuh"

#include <umsync/launch.hpp>
#include <umsync/memory/copy.hpp>
#include <umsync/memory/staging_ring.hpp>
#include <umsync/memory/stream_buffer.hpp>
#include <umsync/stream.hpp>

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace {
struct loader {};
constexpr std::uint64_t hold_ns = 2'000'000;  // each copy waits behind 2 ms of device work
}  // namespace

TEST_CASE("a slot is rewritten only after the copy that read it: every round reaches the device intact")
{
  umsync_test::memory_baseline const baseline;
  auto rng = umsync_test::make_rng();
  std::size_t const n = std::size_t{1} << 16;
  std::size_t const rounds = 8;
  umsync::stream<loader> const s;
  std::vector<std::vector<std::uint32_t>> sent(rounds);
  std::vector<std::vector<std::uint32_t>> got(rounds, std::vector<std::uint32_t>(n, 0xDEADBEEFU));
  {
    umsync::staging_ring<std::uint32_t> ring(2, n);
    CHECK(ring.slot_count() == 2);
    CHECK(ring.slot_size() == n);
    std::vector<umsync::stream_buffer<std::uint32_t, loader>> device;
    for (std::size_t r = 0; r < rounds; ++r) {
      device.emplace_back(n, s);
      UMSYNC_CUDA_CHECK(cudaMemsetAsync(device[r].data(), 0xFF, device[r].size_bytes(), s.view()));  // poison
    }
    for (std::size_t r = 0; r < rounds; ++r) {
      // The copy of round r - 2 read this slot; it is still queued behind the spin when the host
      // comes back to the slot, unless acquire() waits for it.
      auto slot = ring.acquire();
      CHECK(slot.index() == r % 2);
      CHECK(slot.size() == n);
      sent[r] = umsync_test::random_words(rng, n);
      for (std::size_t i = 0; i < n; ++i) {
        slot[i] = sent[r][i];
      }
      umsync::launch(s, {.grid = 1, .block = 1}, umsync_test::spin_for, hold_ns);
      ring.upload(std::move(slot), device[r], s);
      CHECK(slot.empty());
    }
    for (std::size_t r = 0; r < rounds; ++r) {
      umsync::copy_sync_pageable(got[r], device[r], s);
    }
  }
  s.synchronize();
  std::size_t wrong = 0;
  for (std::size_t r = 0; r < rounds; ++r) {
    for (std::size_t i = 0; i < n; ++i) {
      wrong += got[r][i] != sent[r][i] ? 1 : 0;
    }
  }
  CHECK(wrong == 0);
}

TEST_CASE("staging_ring misuse throws: every slot acquired, use after upload, an empty or foreign slot")
{
  umsync_test::memory_baseline const baseline;
  std::size_t const n = 1024;
  umsync::stream<loader> const s;
  std::vector<std::uint32_t> back(n, 0);
  {
    umsync::staging_ring<std::uint32_t> ring(2, n);
    umsync::staging_ring<std::uint32_t> other(1, n);
    umsync::stream_buffer<std::uint32_t, loader> device(n, s);
    UMSYNC_CUDA_CHECK(cudaMemsetAsync(device.data(), 0xFF, device.size_bytes(), s.view()));  // poison
    auto first = ring.acquire();
    auto second = ring.acquire();
    CHECK_THROWS_AS(static_cast<void>(ring.acquire()), umsync::usage_error);  // both are lent out
    auto foreign = other.acquire();
    CHECK_THROWS_AS(ring.upload(std::move(foreign), device, s), umsync::usage_error);
    CHECK_FALSE(foreign.empty());  // a refused upload leaves the slot acquired
    ring.upload(std::move(first), device, s);
    CHECK(first.empty());
    CHECK(first.size() == 0);
    CHECK_THROWS_AS(static_cast<void>(first.data()), umsync::usage_error);
    CHECK_THROWS_AS(static_cast<void>(first[0]), umsync::usage_error);
    CHECK_THROWS_AS(ring.upload(std::move(first), device, s), umsync::usage_error);
    // A slot dropped without an upload goes back to the ring, and nothing is copied.
    {
      auto const dropped = std::move(second);
      CHECK(second.empty());
    }
    auto again = ring.acquire();  // slot 0 again: waits for first's copy
    CHECK(again.index() == 0);
    {
      auto const dropped_back = ring.acquire();  // slot 1, given back above
      CHECK(dropped_back.index() == 1);
    }  // given back again: a ring must outlive its slots, and `moved` below dies first
    // A moved ring keeps its slots valid.
    umsync::staging_ring<std::uint32_t> moved = std::move(ring);
    CHECK(ring.slot_count() == 0);
    CHECK_THROWS_AS(static_cast<void>(ring.acquire()), umsync::usage_error);
    for (std::size_t i = 0; i < n; ++i) {
      again[i] = static_cast<std::uint32_t>(i);
    }
    moved.upload(std::move(again), device, s);
    umsync::copy_sync_pageable(back, device, s);
  }
  s.synchronize();
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < n; ++i) {
    wrong += back[i] != static_cast<std::uint32_t>(i) ? 1 : 0;
  }
  CHECK(wrong == 0);
}
