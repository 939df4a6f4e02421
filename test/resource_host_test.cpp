// Host tests of umsync/memory/resource.hpp and the cuda::mr members of memory_pool.hpp: umsync's
// pools model CCCL's memory-resource concepts with device_accessible under the CCCL this build
// uses (test/cccl35/ checks CCCL 3.5's spelling), a type-erased device_resource_ref holds one,
// and a bad alignment is refused with invalid_argument before any CUDA call (so no GPU is needed).
#include <umsync/error.hpp>
#include <umsync/memory/async_pool_buffer.hpp>
#include <umsync/memory/memory_pool.hpp>
#include <umsync/memory/resource.hpp>

#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>

namespace {

// The concepts, for the owning pool and the handle, in the spelling of this build's CCCL.
#if UMSYNC_DETAIL_CCCL_STREAM_ORDERED_ALLOCATE
static_assert(cuda::mr::resource_with<umsync::memory_pool, cuda::mr::device_accessible>);
static_assert(cuda::mr::resource_with<umsync::memory_pool_ref, cuda::mr::device_accessible>);
static_assert(cuda::mr::synchronous_resource_with<umsync::memory_pool, cuda::mr::device_accessible>);
static_assert(cuda::mr::synchronous_resource_with<umsync::memory_pool_ref, cuda::mr::device_accessible>);
#else
static_assert(cuda::mr::async_resource_with<umsync::memory_pool, cuda::mr::device_accessible>);
static_assert(cuda::mr::async_resource_with<umsync::memory_pool_ref, cuda::mr::device_accessible>);
static_assert(cuda::mr::resource_with<umsync::memory_pool, cuda::mr::device_accessible>);
static_assert(cuda::mr::resource_with<umsync::memory_pool_ref, cuda::mr::device_accessible>);
#endif
static_assert(umsync::stream_ordered_resource<umsync::memory_pool>);
static_assert(umsync::stream_ordered_resource<umsync::memory_pool_ref>);
static_assert(umsync::stream_ordered_resource<umsync::device_resource_ref>);
// A pool's memory is device memory: it does not claim host access.
static_assert(!cuda::has_property<umsync::memory_pool, cuda::mr::host_accessible>);
static_assert(!cuda::has_property<umsync::memory_pool_ref, cuda::mr::host_accessible>);
// A handle converts to the type-erased reference (an lvalue: the reference points at it).
static_assert(std::is_constructible_v<umsync::device_resource_ref, umsync::memory_pool_ref&>);

/// Stream-ordered under both CCCL spellings, but synchronous allocation only: not stream-ordered.
struct synchronous_only {
  void* allocate(std::size_t, std::size_t) { return nullptr; }
  void deallocate(void*, std::size_t, std::size_t) {}
  void* allocate_sync(std::size_t, std::size_t) { return nullptr; }
  void deallocate_sync(void*, std::size_t, std::size_t) {}
  bool operator==(synchronous_only const&) const { return true; }
  [[maybe_unused]] friend void get_property(synchronous_only const&, cuda::mr::device_accessible) noexcept {}
};
static_assert(!umsync::stream_ordered_resource<synchronous_only>);

/// Stream-ordered (both spellings), host memory only: not a source of device memory.
struct host_only {
  void* allocate(std::size_t, std::size_t) { return nullptr; }
  void deallocate(void*, std::size_t, std::size_t) {}
  void* allocate_sync(std::size_t, std::size_t) { return nullptr; }
  void deallocate_sync(void*, std::size_t, std::size_t) {}
  void* allocate_async(std::size_t, std::size_t, cuda::stream_ref) { return nullptr; }
  void deallocate_async(void*, std::size_t, std::size_t, cuda::stream_ref) {}
  void* allocate(cuda::stream_ref, std::size_t, std::size_t) { return nullptr; }
  void deallocate(cuda::stream_ref, void*, std::size_t, std::size_t) {}
  bool operator==(host_only const&) const { return true; }
  [[maybe_unused]] friend void get_property(host_only const&, cuda::mr::host_accessible) noexcept {}
};
static_assert(umsync::detail::allocates_on_streams<host_only>);
static_assert(!umsync::stream_ordered_resource<host_only>);

// Rvalue CCCL references count as references (a buffer copies them), a resource does not.
static_assert(umsync::detail::is_resource_ref<umsync::device_resource_ref>);
static_assert(!umsync::detail::is_resource_ref<umsync::memory_pool_ref>);

// A pool handle that was never created: every check below must fire before CUDA is called.
umsync::memory_pool_ref const no_pool{nullptr};
cuda::stream_ref const per_thread{cudaStreamPerThread};

}  // namespace

TEST_CASE("a pool's allocation alignment is a power of two of at most 256, else invalid_argument naming it")
{
  for (std::size_t const bad : {std::size_t{0}, std::size_t{3}, std::size_t{48}, std::size_t{512}, std::size_t{4096}}) {
    CAPTURE(bad);
    std::string const alignment = "alignment " + std::to_string(bad);
    try {
      static_cast<void>(no_pool.allocate(per_thread, 1024, bad));
      FAIL("allocate accepted a bad alignment");
    } catch (umsync::invalid_argument const& refused) {
      std::string const what = refused.what();
      CHECK(what.find(alignment) != std::string::npos);
      CHECK(what.rfind("umsync: ", 0) == 0);
    }
    CHECK_THROWS_AS(static_cast<void>(no_pool.allocate_async(1024, bad, per_thread)), umsync::invalid_argument);
    CHECK_THROWS_AS(static_cast<void>(no_pool.allocate_sync(1024, bad)), umsync::invalid_argument);
    CHECK_THROWS_AS(static_cast<void>(no_pool.allocate(1024, bad)), umsync::invalid_argument);
    // The standard type too, for code that knows nothing of umsync.
    CHECK_THROWS_AS(static_cast<void>(no_pool.allocate(per_thread, 1024, bad)), std::invalid_argument);
  }
}

TEST_CASE("zero bytes allocate nothing and a null pointer frees nothing, under either name")
{
  for (std::size_t const alignment : {std::size_t{1}, std::size_t{8}, std::size_t{256}}) {
    CAPTURE(alignment);
    CHECK(no_pool.allocate(per_thread, 0, alignment) == nullptr);
    CHECK(no_pool.allocate_async(0, alignment, per_thread) == nullptr);
    no_pool.deallocate(per_thread, nullptr, 0, alignment);
    no_pool.deallocate_async(nullptr, 0, alignment, per_thread);
  }
}

TEST_CASE("through a device_resource_ref, the pool's own checks and names still apply")
{
  umsync::memory_pool_ref handle = no_pool;
  umsync::device_resource_ref ref = handle;
  CHECK(umsync::detail::allocate_from(ref, per_thread, 0, 256) == nullptr);
  CHECK_THROWS_AS(static_cast<void>(umsync::detail::allocate_from(ref, per_thread, 64, 512)), umsync::invalid_argument);
  umsync::detail::deallocate_to(ref, per_thread, nullptr, 0, 256);
  // Directly on the type as well.
  CHECK_THROWS_AS(static_cast<void>(umsync::detail::allocate_from(handle, per_thread, 64, 3)),
                  umsync::invalid_argument);
}

TEST_CASE("resources compare as their pools")
{
  umsync::memory_pool_ref const a{nullptr};
  umsync::memory_pool_ref const b{reinterpret_cast<cudaMemPool_t>(std::uintptr_t{0x1000})};
  CHECK(a == no_pool);
  CHECK_FALSE(a == b);
  umsync::memory_pool const empty = umsync::memory_pool::adopt_imported(nullptr);  // owns nothing: no CUDA call
  CHECK(empty == empty);
}

TEST_CASE("a resource's type name reads as written, for bad_alloc messages")
{
  CHECK(umsync::detail::pretty_type_name_v<synchronous_only>.find("synchronous_only") != std::string_view::npos);
  CHECK(umsync::detail::pretty_type_name_v<umsync::memory_pool>.find("memory_pool") != std::string_view::npos);
  // Nothing after the name (g++ lists the signature's typedefs after it when there are any).
  CHECK(umsync::detail::pretty_type_name_v<synchronous_only>.ends_with("synchronous_only"));
  CHECK(umsync::detail::pretty_type_name_v<umsync::memory_pool>.ends_with("memory_pool"));
}
