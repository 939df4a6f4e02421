// UMSYNC_DEBUG host tests of umsync/stream_view.hpp (no device needed): a null cudaStream_t
// adopted at run time is refused before any CUDA call.
#include <doctest/doctest.h>
#include <umsync/stream_view.hpp>

#include <string>

static_assert(umsync::debug_build, "this file is built with UMSYNC_DEBUG");

namespace {
struct compute {};
}  // namespace

TEST_CASE("a null cudaStream_t adopted at run time is refused, naming legacy_default_stream()")
{
  cudaStream_t const from_elsewhere = nullptr;  // as a library might hand one over
  try {
    static_cast<void>(umsync::stream_view<compute>{from_elsewhere});
    FAIL("no usage_error");
  } catch (umsync::usage_error const& e) {
    std::string const what = e.what();
    CHECK(what.find("null cudaStream_t") != std::string::npos);
    CHECK(what.find("legacy default stream") != std::string::npos);
    CHECK(what.find("umsync::legacy_default_stream()") != std::string::npos);
  }
  // The named default streams are not null handles and stay accepted.
  CHECK(umsync::legacy_default_stream<compute>().get() == cudaStreamLegacy);
  CHECK(umsync::per_thread_default_stream().get() == cudaStreamPerThread);
  // Constant evaluation is untouched: the constructor is still usable in constant expressions.
  static_assert(umsync::stream_view<>{cudaStream_t{}}.get() == nullptr);
}
