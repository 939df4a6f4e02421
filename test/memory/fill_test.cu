// GPU tests of umsync/memory/fill.hpp: fill (1, 2 and 4 byte elements) and memset_bytes on
// device, managed and pinned memory and on slices, with random values; every buffer poisoned
// first, and the elements around a filled slice checked untouched.
#include "support/gpu_test.hpp"
#include "support/managed_warm_up.cuh"

#include <umsync/memory/copy.hpp>
#include <umsync/memory/fill.hpp>
#include <umsync/memory/managed_buffer.hpp>
#include <umsync/memory/pinned_buffer.hpp>
#include <umsync/memory/stream_buffer.hpp>
#include <umsync/stream.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

namespace {
struct compute {};

/// Fills the slice [offset, offset + count) of a poisoned stream buffer of `n` elements with
/// `value`, and checks it and the untouched rest.
template <class T>
void check_fill_of_slice(std::mt19937_64& rng, T value, T poison)
{
  std::size_t const n = 4096 + rng() % 4096;
  std::size_t const offset = rng() % 64;
  std::size_t const count = n - offset - rng() % 64;
  std::vector<T> out(n);
  {
    umsync::stream<compute> const s;
    umsync::stream_buffer<T, compute> buffer(n, s);
    umsync::fill(s, buffer, poison);
    umsync::fill(s, buffer.span().subspan(offset, count), value);
    umsync::copy_sync_pageable(out, buffer, s);
  }
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < n; ++i) {
    T const expected = i >= offset && i < offset + count ? value : poison;
    wrong += std::memcmp(&out[i], &expected, sizeof(T)) != 0 ? 1 : 0;
  }
  CHECK(wrong == 0);
}

}  // namespace

TEST_CASE("fill: 4, 2 and 1 byte elements of a slice of device memory, the rest untouched")
{
  umsync_test::memory_baseline const baseline;
  auto rng = umsync_test::make_rng();
  std::uniform_real_distribution<float> unit(-1.0F, 1.0F);
  check_fill_of_slice<float>(rng, unit(rng), -0.0F);
  check_fill_of_slice<std::uint32_t>(rng, static_cast<std::uint32_t>(rng()), 0xA5A5A5A5U);
  check_fill_of_slice<std::uint16_t>(rng, static_cast<std::uint16_t>(rng()), std::uint16_t{0xA5A5});
  check_fill_of_slice<std::uint8_t>(rng, static_cast<std::uint8_t>(rng()), std::uint8_t{0xA5});
}

TEST_CASE("fill and memset_bytes: managed and pinned memory, and elements fill cannot set")
{
  umsync_test::warm_up_managed();
  umsync_test::memory_baseline const baseline;
  auto rng = umsync_test::make_rng();
  std::size_t const n = 1000 + rng() % 1000;
  auto const value = static_cast<std::int32_t>(rng());
  auto const byte = static_cast<unsigned char>(rng());
  {
    umsync::stream<compute> const s;
    umsync::managed_buffer<std::int32_t> managed(n);
    umsync::pinned_buffer<double> pinned(n);
    for (std::size_t i = 0; i < n; ++i) {
      managed.data()[i] = ~value;  // poison
      pinned.data()[i] = -1.0;
    }
    umsync::fill(s, managed, value);
    umsync::memset_bytes(s, pinned, byte);
    s.synchronize();
    std::size_t wrong = 0;
    double expected = 0;
    std::memset(&expected, byte, sizeof expected);
    for (std::size_t i = 0; i < n; ++i) {
      wrong += managed.data()[i] != value ? 1 : 0;
      wrong += std::memcmp(&pinned.data()[i], &expected, sizeof expected) != 0 ? 1 : 0;
    }
    CHECK(wrong == 0);
  }
}

TEST_CASE("fill: an empty span queues nothing and throws nothing")
{
  umsync_test::memory_baseline const baseline;
  umsync::stream<compute> const s;
  umsync::stream_buffer<float, compute> buffer(16, s);
  umsync::fill(s, buffer.span().first(0), 1.0F);
  umsync::memset_bytes(s, buffer.span().last(0), 0);
  s.synchronize();
}
