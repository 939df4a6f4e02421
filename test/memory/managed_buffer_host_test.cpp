// Host tests of umsync/memory/managed_buffer.hpp, managed_batch.hpp and step_buffer.hpp: the
// parts that need no device (locations, advice codes, batch bookkeeping, policy types).
#include <doctest/doctest.h>
#include <umsync/device.hpp>
#include <umsync/memory/managed_batch.hpp>
#include <umsync/memory/managed_buffer.hpp>
#include <umsync/memory/step_buffer.hpp>

#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

namespace {
using umsync::managed_location;

// Locations map to the CUDA 13 cudaMemLocation form; the host is {Host, 0}.
static_assert(managed_location::host().is_host());
static_assert(!managed_location::device(0).is_host());
static_assert(managed_location::device(2).ordinal() == 2);
static_assert(managed_location::host().get().type == cudaMemLocationTypeHost);
static_assert(managed_location::host().get().id == 0);
static_assert(managed_location::device(1).get().type == cudaMemLocationTypeDevice);
static_assert(managed_location::device(1).get().id == 1);
static_assert(managed_location::device(0) != managed_location::host());

// Each advice type names its set and unset codes and its location.
static_assert(umsync::advice::read_mostly::set == cudaMemAdviseSetReadMostly);
static_assert(umsync::advice::read_mostly::unset == cudaMemAdviseUnsetReadMostly);
static_assert(umsync::advice::preferred_location::set == cudaMemAdviseSetPreferredLocation);
static_assert(umsync::advice::preferred_location::unset == cudaMemAdviseUnsetPreferredLocation);
static_assert(umsync::advice::accessed_by::set == cudaMemAdviseSetAccessedBy);
static_assert(umsync::advice::accessed_by::unset == cudaMemAdviseUnsetAccessedBy);
static_assert(umsync::advice::accessed_by{managed_location::device(3)}.location().id == 3);
static_assert(umsync::advice::preferred_location{managed_location::host()}.location().type == cudaMemLocationTypeHost);
static_assert(umsync::memory_advice<umsync::advice::read_mostly>);
static_assert(!umsync::memory_advice<cudaMemoryAdvise>);

// Advice is for managed memory only.
static_assert(umsync::detail::managed_memory<umsync::managed_buffer<float>>);
static_assert(umsync::detail::managed_memory<umsync::managed_span<float const>>);
static_assert(!umsync::detail::managed_memory<umsync::device_span<float>>);
static_assert(!umsync::detail::managed_memory<umsync::pinned_span<float>>);

// Buffers are move-only; each policy hands kernels the span of its memory kind.
static_assert(!std::is_copy_constructible_v<umsync::managed_buffer<float>>);
static_assert(std::is_nothrow_move_constructible_v<umsync::managed_buffer<float>>);
static_assert(
    std::is_same_v<decltype(std::declval<umsync::managed_buffer<float>&>().span()), umsync::managed_span<float>>);
static_assert(std::is_same_v<decltype(std::declval<umsync::managed_buffer<float> const&>().span()),
                             umsync::managed_span<float const>>);
static_assert(std::is_same_v<decltype(std::declval<umsync::step_buffer<int, umsync::managed>&>().device()),
                             umsync::managed_span<int>>);
static_assert(std::is_same_v<decltype(std::declval<umsync::step_buffer<int, umsync::device_only>&>().device()),
                             umsync::device_span<int>>);
}  // namespace

TEST_CASE("locations describe themselves")
{
  CHECK(managed_location::host().describe() == "host");
  CHECK(managed_location::device(4).describe() == "device 4");
}

TEST_CASE("a batch keeps its ranges in order and leaves out empty ones")
{
  std::uint32_t words[64] = {};
  umsync::managed_batch batch;
  batch.add(umsync::managed_span<std::uint32_t>::adopt(words, 16), managed_location::device(0))
      .add(umsync::managed_span<std::uint32_t>::adopt(words + 16, 0), managed_location::host())
      .add(umsync::managed_span<std::uint32_t const>::adopt(words + 32, 32), managed_location::host());
  REQUIRE(batch.size() == 2);
  CHECK(batch.entries()[0].memory == words);
  CHECK(batch.entries()[0].bytes == 16 * sizeof(std::uint32_t));
  CHECK(batch.entries()[0].to == managed_location::device(0));
  CHECK(batch.entries()[1].memory == words + 32);
  CHECK(batch.entries()[1].to.is_host());
  batch.clear();
  CHECK(batch.empty());
}

TEST_CASE("unsupported features name the feature and the device")
{
  umsync::managed_memory_unsupported const error("concurrent managed access", 3);
  CHECK(error.device() == 3);
  CHECK(std::string(error.what()) == "umsync: device 3 does not support concurrent managed access");
  CHECK(dynamic_cast<umsync::usage_error const*>(&error) != nullptr);
}

TEST_CASE("without a device, batch calls are reported unsupported and allocation is a cuda_error")
{
  if (umsync::probe_devices().usable()) {
    MESSAGE("a device is present: the no-device path is not reachable here");
    return;
  }
  CHECK_FALSE(umsync::batch_managed_calls_supported());
  using managed_floats = umsync::step_buffer<float, umsync::managed>;
  CHECK_THROWS_AS(managed_floats(8), umsync::cuda_error);
}
