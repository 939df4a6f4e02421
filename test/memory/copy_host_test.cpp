// Host tests of umsync/memory/copy.hpp: what copy_async decides before it calls the runtime, so
// no device is needed (a call that reached CUDA here would throw cuda_error without a device).
#include <umsync/memory/copy.hpp>
#include <umsync/memory/memory_span.hpp>
#include <umsync/stream_view.hpp>

#include <doctest/doctest.h>

#include <array>
#include <stdexcept>
#include <string>

namespace {
struct compute {};
}  // namespace

TEST_CASE("copy_async into a smaller destination throws umsync::length_error naming both sizes, before calling CUDA")
{
  std::array<int, 16> dst_storage{};
  std::array<int, 16> src_storage{};
  auto const dst = umsync::device_span<int, compute>::adopt(dst_storage.data(), 8);
  auto const src = umsync::pinned_span<int const>::adopt(src_storage.data(), src_storage.size());
  auto const s = umsync::per_thread_default_stream<compute>();
  try {
    umsync::copy_async(dst, src, s);
    FAIL("no throw");
  } catch (umsync::length_error const& e) {
    CHECK(std::string(e.what()).find("copy of 16 elements into 8") != std::string::npos);
  }
  CHECK_THROWS_AS(umsync::copy_async(dst, src, s), umsync::length_error);
  // One element too few is too few.
  auto const almost = umsync::device_span<int, compute>::adopt(dst_storage.data(), 15);
  CHECK_THROWS_AS(umsync::copy_async(almost, src, s), umsync::length_error);
}

TEST_CASE("copy_async of an empty source calls no CUDA function, whatever the destination")
{
  std::array<int, 8> dst_storage{};
  auto const s = umsync::per_thread_default_stream<compute>();
  auto const empty_src = umsync::pinned_span<int const>::adopt(nullptr, 0);
  CHECK_NOTHROW(umsync::copy_async(umsync::device_span<int, compute>::adopt(nullptr, 0), empty_src, s));
  CHECK_NOTHROW(umsync::copy_async(umsync::device_span<int, compute>::adopt(dst_storage.data(), dst_storage.size()),
                                   empty_src, s));
  CHECK(dst_storage == std::array<int, 8>{});
}
