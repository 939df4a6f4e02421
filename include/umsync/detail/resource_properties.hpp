// umsync/detail/resource_properties.hpp: what umsync's pools and buffers need of cuda::mr
// without its concepts: the device_accessible property (CCCL's properties header alone), the
// alignment of CUDA's allocations, and the hook through which memory/resource.hpp (the concepts,
// device_resource_ref) lets a stream_buffer borrow a resource. The concepts pull in CCCL's
// fp16/bf16/fp8 headers and most of cuda::std; only a translation unit that uses a resource
// pays for them.
//
// CCCL 3.0 hides cuda::mr unless LIBCUDACXX_ENABLE_EXPERIMENTAL_MEMORY_RESOURCE is defined
// before its first header. This header defines it when absent (the umsync CMake target also
// defines it); a translation unit that included cuda::mr's headers earlier without it would
// have them empty, so that is refused with #error rather than failing later in CCCL.
#pragma once

#include <umsync/config.hpp>

#include <cuda/version>

#if CCCL_MAJOR_VERSION > 3 || (CCCL_MAJOR_VERSION == 3 && CCCL_MINOR_VERSION >= 1)
#  define UMSYNC_DETAIL_CCCL_STREAM_ORDERED_ALLOCATE 1  // allocate(stream, bytes, alignment)
#else
#  define UMSYNC_DETAIL_CCCL_STREAM_ORDERED_ALLOCATE 0  // allocate_async(bytes, alignment, stream)
#  if !defined(LIBCUDACXX_ENABLE_EXPERIMENTAL_MEMORY_RESOURCE)
#    if defined(_CUDA__MEMORY_RESOURCE_GET_PROPERTY_H) || defined(_CUDA__MEMORY_RESOURCE_PROPERTIES_H) || \
        defined(_CUDA__MEMORY_RESOURCE_RESOURCE_H) || defined(_CUDA__MEMORY_RESOURCE_RESOURCE_REF_H)
#      error \
          "umsync: CCCL 3.0's cuda::mr headers were included before umsync without LIBCUDACXX_ENABLE_EXPERIMENTAL_MEMORY_RESOURCE, so they are empty; define it for the whole build (the umsync CMake target does) or include umsync first"
#    endif
#    define LIBCUDACXX_ENABLE_EXPERIMENTAL_MEMORY_RESOURCE
#  endif
#endif

#include <cuda/__memory_resource/properties.h>

#include <concepts>
#include <cstddef>

UMSYNC_NAMESPACE_BEGIN

/// The alignment of CUDA's own allocations (cudaMalloc, cudaMallocAsync): what umsync's buffers
/// ask a resource for, and the most a memory_pool can give.
inline constexpr std::size_t device_allocation_alignment = 256;

namespace detail {

/// True when `alignment` is one a memory_pool honours: a power of two, at most 256.
constexpr bool pool_alignment_ok(std::size_t alignment) noexcept
{
  return alignment != 0 && (alignment & (alignment - 1)) == 0 && alignment <= device_allocation_alignment;
}

/// The stream of a cuda::mr call: a cuda::stream_ref (what the concepts pass), anything else
/// whose get() is a cudaStream_t, or a cudaStream_t. Pools take it as a template parameter so
/// that they need not include <cuda/stream_ref>.
template <class Stream>
concept stream_ref_argument = std::same_as<Stream, cudaStream_t> || requires(Stream const& stream)
{
  {
    stream.get()
    } -> std::same_as<cudaStream_t>;
};

template <stream_ref_argument Stream>
[[nodiscard]] cudaStream_t raw_stream_of(Stream const& stream) noexcept
{
  if constexpr (std::same_as<Stream, cudaStream_t>) {
    return stream;
  } else {
    return stream.get();
  }
}

/// What stream_buffer asks of a resource type R, defined by memory/resource.hpp; a buffer
/// made from a resource in a translation unit that did not include it is refused with a
/// message (stream_buffer.hpp).
template <class R>
struct resource_interop;

template <class R>
concept resource_interop_included = requires
{
  sizeof(resource_interop<R>);
};

}  // namespace detail
UMSYNC_NAMESPACE_END
