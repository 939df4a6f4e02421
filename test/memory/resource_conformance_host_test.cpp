// The conformance suite for stream-ordered resources (support/resource_conformance.hpp), what
// holds without a device, over every conforming resource: umsync's memory_pool and
// memory_pool_ref, a device_resource_ref to a pool, and the tests' counting_resource. The
// allocate / use / free round trips on a stream are memory/resource_conformance_test.cu's.
#include "support/resource_conformance.hpp"

#include <umsync/error.hpp>

#include <doctest/doctest.h>

#include <cstddef>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace {
cuda::stream_ref const per_thread{cudaStreamPerThread};
}  // namespace

TEST_CASE_TEMPLATE("conformance: a stream-ordered resource of device-accessible memory, in this CCCL's spelling", F,
                   UMSYNC_TEST_CONFORMING_RESOURCES)
{
  using R = typename F::resource_type;
  static_assert(umsync::stream_ordered_resource<R>);
  static_assert(umsync::detail::allocates_on_streams<R>);
  static_assert(cuda::has_property<R, cuda::mr::device_accessible>);
  static_assert(!cuda::has_property<R, cuda::mr::host_accessible>);  // device memory: no host access claimed
  if constexpr (!umsync::detail::is_resource_ref<R>) {
    static_assert(umsync_test::synchronous_device_resource<R>);
  }
  if constexpr (std::is_same_v<R, umsync::memory_pool> || std::is_same_v<R, umsync::memory_pool_ref>) {
    // umsync's pools: each operation under this CCCL's name only (memory_pool.hpp).
    static_assert(umsync::detail::one_spelling_per_operation<R>);
  }
  if constexpr (std::is_copy_constructible_v<R>) {
    // CCCL 3.1's resource_ref refers to copyable resources (the move-only pool goes by its handle).
    static_assert(std::is_constructible_v<umsync::device_resource_ref, R&>);
  }
}

TEST_CASE_TEMPLATE("conformance: a resource equals itself, and its copies when they are the same resource", F,
                   UMSYNC_TEST_CONFORMING_RESOURCES)
{
  F fixture(false);
  auto& resource = fixture.resource();
  CHECK(resource == resource);
  if constexpr (F::copies_compare_equal) {
    typename F::resource_type const copy = resource;
    CHECK(copy == resource);
  }
  if constexpr (!F::copies_compare_equal && std::is_copy_constructible_v<typename F::resource_type>) {
    typename F::resource_type const copy = resource;
    CHECK_FALSE(copy == resource);  // another resource, which may not free this one's memory
  }
}

TEST_CASE_TEMPLATE("conformance: an alignment that is not a power of two of at most 256 is invalid_argument", F,
                   UMSYNC_TEST_CONFORMING_RESOURCES)
{
  F fixture(false);  // refused before any CUDA call, so also by a pool that was never created
  auto& resource = fixture.resource();
  for (std::size_t const bad : {std::size_t{0}, std::size_t{3}, std::size_t{48}, std::size_t{512}, std::size_t{4096}}) {
    CAPTURE(bad);
    try {
      static_cast<void>(umsync::detail::allocate_from(resource, per_thread, 1024, bad));
      FAIL("a stream-ordered allocate accepted a bad alignment");
    } catch (umsync::invalid_argument const& refused) {
      std::string const what = refused.what();
      CHECK(what.rfind("umsync: ", 0) == 0);
      CHECK(what.find("alignment " + std::to_string(bad)) != std::string::npos);
    }
    CHECK_THROWS_AS(static_cast<void>(umsync_test::allocate_synchronously(resource, 1024, bad)),
                    umsync::invalid_argument);
    // The standard type too, for code that knows nothing of umsync.
    CHECK_THROWS_AS(static_cast<void>(umsync::detail::allocate_from(resource, per_thread, 1024, bad)),
                    umsync::invalid_argument);
  }
}

TEST_CASE_TEMPLATE("conformance: zero bytes allocate nothing and a null pointer frees nothing", F,
                   UMSYNC_TEST_CONFORMING_RESOURCES)
{
  if constexpr (F::allocates_without_device) {
    F fixture(false);
    auto& resource = fixture.resource();
    for (std::size_t const alignment : {std::size_t{1}, std::size_t{8}, std::size_t{256}}) {
      CAPTURE(alignment);
      CHECK(umsync::detail::allocate_from(resource, per_thread, 0, alignment) == nullptr);
      umsync::detail::deallocate_to(resource, per_thread, nullptr, 0, alignment);
      CHECK(umsync_test::allocate_synchronously(resource, 0, alignment) == nullptr);
      umsync_test::deallocate_synchronously(resource, nullptr, 0, alignment);
    }
  } else {
    MESSAGE("needs a created pool: memory/resource_conformance_test.cu checks it on a device");
  }
}

TEST_CASE("conformance: a memory_pool without a pool (moved from, or empty) refuses to allocate with usage_error")
{
  umsync_test::memory_pool_fixture fixture(false);
  CHECK_THROWS_AS(static_cast<void>(umsync::detail::allocate_from(fixture.pool, per_thread, 0, 256)),
                  umsync::usage_error);
  CHECK_THROWS_AS(static_cast<void>(umsync_test::allocate_synchronously(fixture.pool, 64, 256)), umsync::usage_error);
  umsync::detail::deallocate_to(fixture.pool, per_thread, nullptr, 0, 256);  // a free needs no pool
}
