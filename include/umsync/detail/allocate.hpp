// umsync/detail/allocate.hpp: the one allocation path of every umsync buffer.
//
// Each buffer asks CUDA for memory in its own way (cudaMallocAsync, cudaMallocManaged,
// cudaMallocHost, ...), and every one must then do the same four things: refuse a count whose
// byte size overflows, skip the call for zero elements (the runtime rejects some zero sizes),
// turn "out of memory" into umsync::bad_alloc naming the allocator and the caller's line, and
// any other failure into cuda_error. allocate_elements does them once. In UMSYNC_DEBUG builds
// it also registers the allocation's address range with the ordering checker; each buffer's
// releaser removes it when it frees the memory (debug::note_freed).
#pragma once

#include <umsync/config.hpp>
#include <umsync/detail/debug/checker_hooks.hpp>
#include <umsync/detail/unique_handle.hpp>
#include <umsync/error.hpp>

#include <cstddef>
#include <limits>
#include <source_location>

UMSYNC_NAMESPACE_BEGIN
namespace detail {

/// bytes_of's failure, out of line: one body per translation unit, not one per element type.
[[noreturn, gnu::cold]] void throw_size_overflow(text_view owner, std::size_t count, std::size_t element_bytes);

/// The bytes of `count` elements of T; length_error naming `owner` when that overflows size_t.
template <class T>
std::size_t bytes_of(std::size_t count, text_view owner)
{
  if (count > std::numeric_limits<std::size_t>::max() / sizeof(T)) {
    throw_size_overflow(owner, count, sizeof(T));
  }
  return count * sizeof(T);
}

/// allocate_elements' out-of-memory failure, out of line, with what the allocator said.
[[noreturn, gnu::cold]] void throw_out_of_memory(std::size_t bytes, text_view call, text_view allocator_state,
                                                 std::source_location const& where);

/// What an allocator says about itself when it runs out (a pool's reserved and used bytes).
struct no_allocator_state {
  constexpr text_view operator()() const noexcept { return {}; }
};

/// `count` elements of T from `allocate`, a callable `cudaError_t(void** memory, std::size_t
/// bytes)` that wraps the CUDA call named `call`. Zero elements allocate nothing.
template <class T, class Allocate, class Describe = no_allocator_state>
owned_elements<T> allocate_elements(std::size_t count, text_view owner, text_view call, Allocate&& allocate,
                                    std::source_location const& where, Describe&& describe_allocator = {})
{
  std::size_t const bytes = bytes_of<T>(count, owner);
  if (count == 0) {
    return {};
  }
  void* memory = nullptr;
  cudaError_t const status = allocate(&memory, bytes);
  if (status == cudaErrorMemoryAllocation) [[unlikely]] {
    throw_out_of_memory(bytes, call, describe_allocator(), where);
  }
  check(status, call, where);
  debug::note_allocated(memory, bytes);  // UMSYNC_DEBUG: the checker knows the range; the releaser forgets it
  return {static_cast<T*>(memory), count};
}

// The compiled part of this header (config.hpp: inline here, or compiled once with
// UMSYNC_SEPARATE_COMPILATION).
#if UMSYNC_DETAIL_COMPILED_BODIES

[[gnu::noinline]] UMSYNC_DETAIL_COMPILED void throw_size_overflow(text_view owner, std::size_t count,
                                                                  std::size_t element_bytes)
{
  throw length_error(owner, " of ", count, " elements of ", element_bytes, " bytes overflows size_t");
}

[[gnu::noinline]] UMSYNC_DETAIL_COMPILED void throw_out_of_memory(std::size_t bytes, text_view call,
                                                                  text_view allocator_state,
                                                                  std::source_location const& where)
{
  static_cast<void>(cudaGetLastError());
  throw bad_alloc(bytes, call, allocator_state, where);
}

#endif  // UMSYNC_DETAIL_COMPILED_BODIES

}  // namespace detail
UMSYNC_NAMESPACE_END
