// umsync/memory/resource.hpp: memory resources in CCCL's terms (cuda::mr), spelled for either CCCL.
//
//   umsync::memory_pool pool;                                    // models the concept itself
//   my_arena arena;                                              // a user's (or RMM's) resource
//   static_assert(umsync::stream_ordered_resource<my_arena>);
//   umsync::stream_buffer<float, compute> x(n, s, arena);    // borrows `arena`, frees on s
//   umsync::stream_buffer<float, compute> y(n, s, rmm::mr::get_current_device_resource_ref());
//
// A stream-ordered resource allocates and frees ordered on a stream, and its memory is device
// accessible (it says so with `get_property(r, cuda::mr::device_accessible)`). CCCL spells this
// two ways, and umsync accepts the one of the CCCL it is compiled with:
//
//   CCCL 3.0 (CUDA 13.0's toolkit)        CCCL 3.1 and later (RMM 26.x)
//   allocate(bytes, alignment)            allocate_sync(bytes, alignment)
//   deallocate(p, bytes, alignment)       deallocate_sync(p, bytes, alignment)
//   allocate_async(bytes, alignment, s)   allocate(s, bytes, alignment)
//   deallocate_async(p, bytes, align, s)  deallocate(s, p, bytes, alignment)
//   async_resource_ref<device_accessible> resource_ref<device_accessible>
//
// `stream_ordered_resource<R>` is that test, `device_resource_ref` that reference type, and
// `detail::allocate_from` / `detail::deallocate_to` call the stream-ordered pair by its name in
// this CCCL. umsync's own `memory_pool` and `memory_pool_ref` have this CCCL's column only (no
// member is stream-ordered or synchronous by the order of its arguments); their conformance is
// asserted below the concepts.
//
// This is the header of resources: umsync's pools and buffers themselves include only
// detail/resource_properties.hpp, so that a translation unit that uses no resource does not
// parse the concepts. A buffer made from a resource, and code that names the concepts or
// device_resource_ref, includes this header.
#pragma once

#include <umsync/config.hpp>
#include <umsync/detail/resource_properties.hpp>
#include <umsync/detail/type_name.hpp>
#include <umsync/error.hpp>
#include <umsync/memory/memory_pool.hpp>

#include <cuda/memory_resource>
#include <cuda/stream_ref>

#include <concepts>
#include <cstddef>
#include <new>
#include <source_location>
#include <type_traits>

UMSYNC_NAMESPACE_BEGIN

#if UMSYNC_DETAIL_CCCL_STREAM_ORDERED_ALLOCATE
/// R allocates and frees ordered on a stream, and its memory is device accessible
/// (CCCL 3.1 and later: cuda::mr::resource_with<R, cuda::mr::device_accessible>).
template <class R>
concept stream_ordered_resource = cuda::mr::resource_with<R, cuda::mr::device_accessible>;

/// A non-owning, type-erased stream-ordered resource whose memory is device accessible. The
/// resource it refers to must outlive it (and everything allocated through it).
using device_resource_ref = cuda::mr::resource_ref<cuda::mr::device_accessible>;
#else
/// R allocates and frees ordered on a stream, and its memory is device accessible
/// (CCCL 3.0: cuda::mr::async_resource_with<R, cuda::mr::device_accessible>).
template <class R>
concept stream_ordered_resource = cuda::mr::async_resource_with<R, cuda::mr::device_accessible>;

/// A non-owning, type-erased stream-ordered resource whose memory is device accessible. The
/// resource it refers to must outlive it (and everything allocated through it).
using device_resource_ref = cuda::mr::async_resource_ref<cuda::mr::device_accessible>;
#endif

// umsync's pools conform, in this CCCL's spelling (as RMM asserts under each resource; the
// concepts stay out of memory_pool.hpp, which asserts the one spelling of each member itself).
// The move-only memory_pool is a resource, and only its copyable handle can be referred to by
// CCCL 3.1's resource_ref, so the reference is asserted of the handle.
static_assert(stream_ordered_resource<memory_pool>);
static_assert(stream_ordered_resource<memory_pool_ref>);
static_assert(!cuda::has_property<memory_pool_ref, cuda::mr::host_accessible>);
static_assert(std::is_constructible_v<device_resource_ref, memory_pool_ref&>);

namespace detail {

#if UMSYNC_DETAIL_CCCL_STREAM_ORDERED_ALLOCATE
/// R has the stream-ordered pair, whatever its properties (it may lack device_accessible).
template <class R>
concept allocates_on_streams = cuda::mr::resource<R>;
#else
template <class R>
concept allocates_on_streams = cuda::mr::async_resource<R>;
#endif

/// R says its memory is device accessible.
template <class R>
concept device_accessible_resource = cuda::has_property<R, cuda::mr::device_accessible>;

/// `bytes` with `alignment` from `resource`, ordered on `stream`, by this CCCL's name of the call.
template <class R>
  requires(allocates_on_streams<R> && !std::is_same_v<std::remove_cv_t<R>, device_resource_ref>)
[[nodiscard]] void* allocate_from(R& resource, cuda::stream_ref stream, std::size_t bytes, std::size_t alignment)
{
#if UMSYNC_DETAIL_CCCL_STREAM_ORDERED_ALLOCATE
  return resource.allocate(stream, bytes, alignment);
#else
  return resource.allocate_async(bytes, alignment, stream);
#endif
}

/// The same through a device_resource_ref: CCCL's references allocate through non-const members
/// only, and a const or temporary reference still names its resource, so a const one is copied
/// first (a non-const one is used as it is: CCCL 3.1's copy is not free). (A template so that
/// nothing converts to it: CCCL 3.1 rejects a move-only resource with a hard error while merely
/// trying.)
template <class Ref>
  requires std::same_as<std::remove_cvref_t<Ref>, device_resource_ref>
[[nodiscard]] void* allocate_from(Ref&& ref, cuda::stream_ref stream, std::size_t bytes, std::size_t alignment)
{
  if constexpr (std::is_const_v<std::remove_reference_t<Ref>>) {
    device_resource_ref copy(ref);
    return allocate_from(copy, stream, bytes, alignment);
  } else {
#if UMSYNC_DETAIL_CCCL_STREAM_ORDERED_ALLOCATE
    return ref.allocate(stream, bytes, alignment);
#else
    return ref.allocate_async(bytes, alignment, stream);
#endif
  }
}

/// Gives `memory` (from allocate_from with the same bytes and alignment) back to `resource`,
/// ordered on `stream`.
template <class R>
  requires(allocates_on_streams<R> && !std::is_same_v<std::remove_cv_t<R>, device_resource_ref>)
void deallocate_to(R& resource, cuda::stream_ref stream, void* memory, std::size_t bytes, std::size_t alignment)
{
#if UMSYNC_DETAIL_CCCL_STREAM_ORDERED_ALLOCATE
  resource.deallocate(stream, memory, bytes, alignment);
#else
  resource.deallocate_async(memory, bytes, alignment, stream);
#endif
}

/// The same through a device_resource_ref (see allocate_from).
template <class Ref>
  requires std::same_as<std::remove_cvref_t<Ref>, device_resource_ref>
void deallocate_to(Ref&& ref, cuda::stream_ref stream, void* memory, std::size_t bytes, std::size_t alignment)
{
  if constexpr (std::is_const_v<std::remove_reference_t<Ref>>) {
    device_resource_ref copy(ref);
    deallocate_to(copy, stream, memory, bytes, alignment);
  } else {
#if UMSYNC_DETAIL_CCCL_STREAM_ORDERED_ALLOCATE
    ref.deallocate(stream, memory, bytes, alignment);
#else
    ref.deallocate_async(memory, bytes, alignment, stream);
#endif
  }
}

/// True for CCCL's non-owning resource references (either CCCL), which a temporary may be.
template <class T>
inline constexpr bool is_resource_ref = false;
#if UMSYNC_DETAIL_CCCL_STREAM_ORDERED_ALLOCATE
template <class... Properties>
inline constexpr bool is_resource_ref<cuda::mr::resource_ref<Properties...>> = true;
template <class... Properties>
inline constexpr bool is_resource_ref<cuda::mr::synchronous_resource_ref<Properties...>> = true;
#else
template <cuda::mr::_AllocType Kind, class... Properties>
inline constexpr bool is_resource_ref<cuda::mr::basic_resource_ref<Kind, Properties...>> = true;
#endif

/// A resource ran out: umsync::bad_alloc naming it (`name`), with what it said, as
/// allocate_elements words it.
[[noreturn]] inline void resource_exhausted(std::size_t bytes, text_view name, text_view said,
                                            std::source_location const& where)
{
  static_cast<void>(cudaGetLastError());
  throw bad_alloc(bytes, name, compose<message_capacity>("a stream-ordered resource", said.empty() ? "" : ": ", said),
                  where);
}

/// allocate_from for allocate_elements: cudaErrorMemoryAllocation when the resource returns
/// null. When it runs out (throws std::bad_alloc, or CCCL 3.1's cuda::cuda_error of out of
/// memory), umsync::bad_alloc naming `name` with what it said, thrown here, where what it said
/// is at hand (so that the allocation keeps no text of its own); anything else it throws passes
/// through. Always inlined: called out of line, its exception frame was about half of what a
/// buffer adds to the resource's own allocate and deallocate (docs/rmm.md).
template <class Resource>
[[gnu::always_inline]] inline cudaError_t allocate_or_report(Resource& resource, cudaStream_t stream, std::size_t bytes,
                                                             void*& memory, text_view name,
                                                             std::source_location const& where)
{
  try {
    memory = allocate_from(resource, stream, bytes, device_allocation_alignment);
  } catch (std::bad_alloc const& exhausted) {
    text_view const text = exhausted.what();
    resource_exhausted(bytes, name, text.starts_with("umsync: ") ? text.substr(8) : text,
                       where);  // a pool's own bad_alloc, inside ours
  }
#if UMSYNC_DETAIL_CCCL_STREAM_ORDERED_ALLOCATE
  catch (cuda::cuda_error const& failure) {
    if (failure.status() != cudaErrorMemoryAllocation) {
      throw;
    }
    resource_exhausted(bytes, name, failure.what(), where);
  }
#endif
  return memory == nullptr ? cudaErrorMemoryAllocation : cudaSuccess;
}

/// What stream_buffer (through detail/resource_properties.hpp) asks of a resource type R.
template <class R>
struct resource_interop {
  static constexpr bool allocates_on_streams = detail::allocates_on_streams<R>;
  static constexpr bool device_accessible = detail::device_accessible_resource<R>;
  /// A CCCL reference (either CCCL), which a temporary may be: kept as a device_resource_ref.
  static constexpr bool is_reference = is_resource_ref<std::remove_cv_t<R>>;
  using reference = device_resource_ref;

  static cudaError_t allocate(R& resource, cudaStream_t stream, std::size_t bytes, void*& memory, text_view name,
                              std::source_location const& where)
  {
    return allocate_or_report(resource, stream, bytes, memory, name, where);
  }
  static void deallocate(R& resource, cudaStream_t stream, void* memory, std::size_t bytes)
  {
    deallocate_to(resource, stream, memory, bytes, device_allocation_alignment);
  }
};

}  // namespace detail
UMSYNC_NAMESPACE_END
