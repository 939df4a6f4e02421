// Host tests of umsync/memory/staging_ring.hpp: the sizes refused before any memory is pinned
// (the rest needs a GPU: test/memory/staging_ring_test.cu).
#include <doctest/doctest.h>
#include <umsync/memory/staging_ring.hpp>

#include <cstddef>
#include <cstdint>
#include <string>

TEST_CASE("staging_ring refuses zero slots, zero elements and a byte size that overflows")
{
  CHECK_THROWS_AS(umsync::staging_ring<std::uint32_t>(0, 16), umsync::invalid_argument);
  CHECK_THROWS_AS(umsync::staging_ring<std::uint32_t>(4, 0), umsync::invalid_argument);
  CHECK_THROWS_AS(umsync::staging_ring<std::uint32_t>(4, static_cast<std::size_t>(-1) / 8), umsync::length_error);
  try {
    umsync::staging_ring<std::uint32_t> const ring(0, 16);
    FAIL("no invalid_argument");
  } catch (umsync::invalid_argument const& e) {
    CHECK(std::string(e.what()).find("memory/staging_ring_host_test.cpp") != std::string::npos);  // the caller's line
  }
}
