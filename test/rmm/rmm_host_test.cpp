// Host tests of umsync with RMM (umsync::rmm): what holds without a device, compiled by the host
// compiler with RMM's CCCL first on the include path (cmake/umsync-rmm.cmake).
//
// - The types meet: umsync's memory_pool and memory_pool_ref are stream-ordered, device-accessible
//   resources in RMM's CCCL, and an rmm::device_async_resource_ref and the owning
//   cuda::mr::any_resource that RMM's containers take can be made from a memory_pool_ref; RMM's resources are
//   umsync::stream_ordered_resource, and umsync's buffers take them; umsync::device_resource_ref is
//   rmm::device_async_resource_ref.
// - A reference made from a pool handle allocates nothing when made, compares by the pool it names,
//   and its zero-byte allocation goes through RMM's type erasure to umsync's pool without a CUDA
//   call (a null pointer, as for every umsync allocation of zero bytes).
// - RMM's failure contract (umsync/rmm.hpp): a pool's out of memory reaches RMM as
//   rmm::out_of_memory and any other failed allocation as rmm::bad_alloc, each caught by RMM's
//   types, by std::bad_alloc and std::exception (one base each: no ambiguity) and by
//   umsync::error, with umsync's message.
#include <doctest/doctest.h>
#include <umsync/memory/memory_pool.hpp>
#include <umsync/memory/resource.hpp>
#include <umsync/memory/stream_buffer.hpp>
#include <umsync/rmm.hpp>
#include <umsync/stream_view.hpp>

#include <rmm/mr/cuda_async_memory_resource.hpp>
#include <rmm/mr/cuda_memory_resource.hpp>
#include <rmm/mr/failure_callback_resource_adaptor.hpp>
#include <rmm/mr/pool_memory_resource.hpp>
#include <rmm/mr/statistics_resource_adaptor.hpp>
#include <rmm/resource_ref.hpp>

#include <cuda/memory_resource>
#include <cuda/version>

#include <cstddef>
#include <cstdint>
#include <exception>
#include <new>
#include <source_location>
#include <string>
#include <type_traits>

namespace {
struct compute {};

// RMM 26.x speaks CCCL 3.5's cuda::mr; a toolkit CCCL ahead on the include path would fail here
// rather than in RMM's headers.
static_assert(CCCL_MAJOR_VERSION > 3 || (CCCL_MAJOR_VERSION == 3 && CCCL_MINOR_VERSION >= 5),
              "umsync: RMM's CCCL (3.5 or later) must come before the CUDA toolkit's on the include path");

// One reference type across both libraries.
static_assert(std::is_same_v<umsync::device_resource_ref, rmm::device_async_resource_ref>);

// umsync's pools in RMM's terms.
static_assert(umsync::stream_ordered_resource<umsync::memory_pool>);
static_assert(umsync::stream_ordered_resource<umsync::memory_pool_ref>);
static_assert(cuda::mr::resource_with<umsync::memory_pool_ref, cuda::mr::device_accessible>);
// CCCL 3.5's resource_ref requires a copyable resource (its interface can make an any_resource),
// and memory_pool owns its pool (move-only): RMM refers to a pool through its memory_pool_ref.
// (Asking is_constructible about memory_pool& is a hard error inside CCCL, not false.)
static_assert(std::is_constructible_v<rmm::device_async_resource_ref, umsync::memory_pool_ref&>);
// What rmm::device_buffer and rmm::device_uvector take: an owning any_resource, made from a copy
// of the (non-owning) pool handle or from a reference.
static_assert(std::is_constructible_v<cuda::mr::any_resource<cuda::mr::device_accessible>, umsync::memory_pool_ref>);
static_assert(
    std::is_constructible_v<cuda::mr::any_resource<cuda::mr::device_accessible>, rmm::device_async_resource_ref>);

// RMM's resources in umsync's terms.
static_assert(umsync::stream_ordered_resource<rmm::mr::cuda_memory_resource>);
static_assert(umsync::stream_ordered_resource<rmm::mr::cuda_async_memory_resource>);
static_assert(umsync::stream_ordered_resource<rmm::mr::pool_memory_resource>);
static_assert(umsync::stream_ordered_resource<rmm::mr::statistics_resource_adaptor>);
static_assert(umsync::stream_ordered_resource<rmm::device_async_resource_ref>);

// umsync's buffers take them: a resource lvalue (borrowed), or a reference by value.
using buffer = umsync::stream_buffer<float, compute>;
static_assert(
    std::is_constructible_v<buffer, std::size_t, umsync::stream_view<compute>, rmm::mr::cuda_async_memory_resource&>);
static_assert(
    std::is_constructible_v<buffer, std::size_t, umsync::stream_view<compute>, rmm::mr::pool_memory_resource&>);
static_assert(
    std::is_constructible_v<buffer, std::size_t, umsync::stream_view<compute>, rmm::mr::statistics_resource_adaptor&>);
static_assert(
    std::is_constructible_v<buffer, std::size_t, umsync::stream_view<compute>, rmm::device_async_resource_ref>);

// A pool handle that is never used with CUDA: the refs below only carry it.
cudaMemPool_t fake_pool(std::uintptr_t n) { return reinterpret_cast<cudaMemPool_t>(n * 4096); }  // NOLINT
}  // namespace

TEST_CASE("an rmm::device_async_resource_ref to umsync's pool handle compares by the pool it names")
{
  // Non-const: a cuda::mr::resource_ref refers to a mutable resource.
  umsync::memory_pool_ref first{fake_pool(1)};
  umsync::memory_pool_ref same{fake_pool(1)};
  umsync::memory_pool_ref other{fake_pool(2)};
  rmm::device_async_resource_ref const a{first};
  rmm::device_async_resource_ref const b{same};
  rmm::device_async_resource_ref const c{other};
  CHECK(a == b);
  CHECK_FALSE(a == c);
  // umsync's own reference type is RMM's: the same comparison through it.
  umsync::device_resource_ref const d{first};
  CHECK(d == a);
}

TEST_CASE("zero bytes through an rmm::device_async_resource_ref to umsync's pool: a null pointer, no CUDA call")
{
  umsync::memory_pool_ref pool{fake_pool(3)};
  rmm::device_async_resource_ref ref{pool};
  // A stream handle that is never used either: zero bytes never reach CUDA.
  cuda::stream_ref const stream{reinterpret_cast<cudaStream_t>(std::uintptr_t{8192})};  // NOLINT
  void* const memory = ref.allocate(stream, 0, 256);
  CHECK(memory == nullptr);
  ref.deallocate(stream, memory, 0, 256);
}

TEST_CASE("RMM's cuda_memory_resource behind umsync::device_resource_ref, made without a device")
{
  rmm::mr::cuda_memory_resource resource;
  umsync::device_resource_ref const ref{resource};
  CHECK(ref == rmm::device_async_resource_ref{resource});
  CHECK(cuda::has_property<umsync::device_resource_ref, cuda::mr::device_accessible>);
}

namespace {
// The type a handler of `Caught` receives when `raise` throws, or nothing when none does.
template <class Caught, class Raise>
bool caught_as(Raise raise)
{
  try {
    raise();
  } catch (Caught const&) {
    return true;
  } catch (...) {
    return false;
  }
  return false;
}

// What a pool's cuda::mr allocate throws for each failure: the translation umsync/rmm.hpp
// installed (detail::throw_resource_failure is the one place memory_pool_ref throws through).
void pool_out_of_memory()
{
  umsync::detail::throw_resource_failure(umsync::bad_alloc(std::size_t{1} << 50, "umsync::memory_pool_ref (test)",
                                                           "pool reserved 0 B, used 0 B"));
}
void pool_call_failed()
{
  umsync::detail::throw_resource_failure(umsync::cuda_error(cudaErrorInvalidValue, "cudaMallocFromPoolAsync (test)"));
}

// Each has one std::bad_alloc base (RMM's), so a standard catch is unambiguous.
static_assert(std::is_base_of_v<rmm::out_of_memory, umsync::rmm_out_of_memory>);
static_assert(std::is_base_of_v<umsync::error, umsync::rmm_out_of_memory>);
static_assert(std::is_base_of_v<rmm::bad_alloc, umsync::rmm_bad_alloc>);
static_assert(!std::is_base_of_v<rmm::out_of_memory, umsync::rmm_bad_alloc>);
static_assert(std::is_base_of_v<umsync::error, umsync::rmm_bad_alloc>);

// A resource that runs out as a umsync pool does (through detail::throw_resource_failure).
struct exhausted_pool {
  void* allocate(cuda::stream_ref, std::size_t bytes, std::size_t)
  {
    umsync::detail::throw_resource_failure(umsync::bad_alloc(bytes, "umsync::memory_pool_ref (test)"));
  }
  void deallocate(cuda::stream_ref, void*, std::size_t, std::size_t) noexcept {}
  void* allocate_sync(std::size_t bytes, std::size_t alignment)
  {
    return allocate(cuda::stream_ref{cudaStream_t{nullptr}}, bytes, alignment);
  }
  void deallocate_sync(void*, std::size_t, std::size_t) noexcept {}
  bool operator==(exhausted_pool const&) const noexcept { return true; }
  [[maybe_unused]] friend void get_property(exhausted_pool const&, cuda::mr::device_accessible) noexcept {}
};
}  // namespace

TEST_CASE("with umsync/rmm.hpp, a pool's out of memory is rmm::out_of_memory, and every catch still matches")
{
  CHECK(caught_as<umsync::rmm_out_of_memory>(pool_out_of_memory));
  CHECK(caught_as<rmm::out_of_memory>(pool_out_of_memory));
  CHECK(caught_as<rmm::bad_alloc>(pool_out_of_memory));
  CHECK(caught_as<std::bad_alloc>(pool_out_of_memory));
  CHECK(caught_as<std::exception>(pool_out_of_memory));
  CHECK(caught_as<umsync::error>(pool_out_of_memory));
  try {
    pool_out_of_memory();
  } catch (umsync::rmm_out_of_memory const& failure) {
    std::string const what = failure.what();
    INFO(what);
    CHECK(what.rfind("umsync: umsync::memory_pool_ref (test) could not allocate 1125899906842624 bytes", 0) == 0);
    CHECK(what.find("rmm_host_test.cpp") != std::string::npos);  // the caller's line, as umsync says it
    CHECK(failure.requested_bytes() == std::size_t{1} << 50);
    CHECK(std::string(static_cast<umsync::error const&>(failure).what()) == what);
  }
}

TEST_CASE("with umsync/rmm.hpp, a pool's other failed allocation is rmm::bad_alloc, not out_of_memory")
{
  CHECK(caught_as<umsync::rmm_bad_alloc>(pool_call_failed));
  CHECK(caught_as<rmm::bad_alloc>(pool_call_failed));
  CHECK_FALSE(caught_as<rmm::out_of_memory>(pool_call_failed));
  CHECK(caught_as<std::bad_alloc>(pool_call_failed));
  CHECK(caught_as<std::exception>(pool_call_failed));
  CHECK(caught_as<umsync::error>(pool_call_failed));
  try {
    pool_call_failed();
  } catch (umsync::rmm_bad_alloc const& failure) {
    CHECK(failure.code() == cudaErrorInvalidValue);
    CHECK(std::string(failure.what()).find("cudaMallocFromPoolAsync (test) failed with cudaErrorInvalidValue") !=
          std::string::npos);
  }
}

TEST_CASE("RMM's failure_callback_resource_adaptor sees a umsync pool's out of memory (its default ExceptionType)")
{
  // A resource that fails as a umsync pool does when it runs out, behind RMM's adaptor: the
  // callback runs once per failed attempt, and when it gives up the exception reaches the caller.
  int calls = 0;
  rmm::mr::failure_callback_resource_adaptor<> adaptor(
      cuda::mr::any_resource<cuda::mr::device_accessible>(exhausted_pool{}),
      [](std::size_t, void* count) {
        return ++*static_cast<int*>(count) < 3;  // retry twice, then give up
      },
      &calls);
  cuda::stream_ref const stream{reinterpret_cast<cudaStream_t>(std::uintptr_t{8192})};  // NOLINT: never used
  CHECK_THROWS_AS(static_cast<void>(adaptor.allocate(stream, 4096, 256)), rmm::out_of_memory);
  CHECK(calls == 3);
}
