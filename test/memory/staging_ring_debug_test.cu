// The UMSYNC_DEBUG checker and umsync/memory/staging_ring.hpp: acquire() is a host write of the
// slot, checked against every stream that read it. Through upload() alone it is always ordered
// (acquire waits for the upload's copy); a kernel given the slot itself on another stream, not
// waited for, is reported when the host comes back to the slot.
#include "support/gpu_test.hpp"
#include "support/kernels.cuh"

#include <umsync/umsync.hpp>

#include <cstddef>
#include <cstdint>
#include <source_location>
#include <utility>
#include <vector>

static_assert(umsync::debug_build, "this file is built with UMSYNC_DEBUG");

namespace {
struct loader {};
}  // namespace

TEST_CASE("a host write to a staging slot that another stream still reads is reported at acquire")
{
  umsync_test::memory_baseline const baseline;
  auto rng = umsync_test::make_rng();
  std::size_t const n = 4096;
  umsync::stream<loader> const s;
  umsync::stream<> const reader;
  std::vector<std::uint32_t> sent = umsync_test::random_words(rng, n);
  std::vector<std::uint32_t> got(n, 0);
  {
    umsync::staging_ring<std::uint32_t> ring(1, n);
    umsync::stream_buffer<std::uint32_t, loader> device(n, s);
    umsync::stream_buffer<std::uint32_t> result(n, reader);
    // Rounds through upload() alone: no report.
    for (int round = 0; round < 3; ++round) {
      auto slot = ring.acquire();
      for (std::size_t i = 0; i < n; ++i) {
        slot[i] = sent[i];
      }
      ring.upload(std::move(slot), device, s);
    }
    umsync::copy_sync_pageable(got, device, s);
    // A kernel on `reader` reads the slot itself; the upload's event does not cover it.
    auto slot = ring.acquire();
    umsync::launch(reader, {.grid = 1, .block = 1}, umsync_test::spin_for, std::uint64_t{1'000'000});
    unsigned const read_line = std::source_location::current().line() + 1;
    umsync::launch(reader, {.grid = 16, .block = 256}, umsync_test::xor_with, std::as_const(slot), result, n, 1U);
    ring.upload(std::move(slot), device, s);
    unsigned const acquire_line = std::source_location::current().line() + 2;
    try {
      static_cast<void>(ring.acquire());
      FAIL("no ordering_error");
    } catch (umsync::ordering_error const& e) {
      MESSAGE(e.what());
      CHECK(e.earlier().stream == static_cast<void const*>(reader.get()));
      CHECK(std::string_view(e.earlier().operation) == "read");
      CHECK(e.earlier().where.line() == read_line);
      CHECK(e.later().stream == nullptr);  // the host
      CHECK(std::string_view(e.later().operation) == "write");
      CHECK(e.later().where.line() == acquire_line);
    }
    reader.synchronize();
    CHECK_NOTHROW(static_cast<void>(ring.acquire()));  // dropped at once: given back
    s.synchronize();
  }
  CHECK(got == sent);
}
