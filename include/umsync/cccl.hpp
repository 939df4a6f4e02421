// umsync/cccl.hpp: CCCL 3.5's owning types (cuda::stream, cuda::buffer, cuda::device_memory_pool,
// cuda::launch) next to umsync's. Needs CCCL 3.5 or later first on the include path
// (docs/compatibility.md says which umsync type goes beside which CCCL type, and why the tags).
//
// - A cuda::stream or cuda::stream_ref becomes a tagged view: umsync::adopt_stream<Tag>(s), the
//   same as stream_view<Tag>{handle}. A temporary cuda::stream is refused (the view would dangle).
// - A cuda::buffer is umsync memory through a span of it bound to its own stream:
//   umsync::buffer_memory(buffer, s) checks (UMSYNC_DEBUG builds) that `s` is the buffer's stream
//   and gives a memory_span tagged with s's tag, of the kind its properties say (device only:
//   device; host accessible too: named by the caller, since CCCL does not say pinned or managed).
// - Pools: cuda::device_memory_pool is a stream-ordered resource, so stream_buffer takes it as
//   it takes any (nothing here); umsync's memory_pool_ref is a cuda::mr resource, so
//   a cuda::device_buffer takes it (nothing here either). The static_asserts below state both.
// - cuda::launch: an untagged memory_span passes as the kernel's cuda::std::span, through CCCL's
//   transform_launch_argument hook. Tagged memory is refused: cuda::launch hands the hook a
//   cuda::stream_ref, which carries no tag to check it against (use umsync::launch).
#pragma once

#include <umsync/config.hpp>
#include <umsync/detail/dependent_false.hpp>
#include <umsync/error.hpp>
#include <umsync/memory/memory_pool.hpp>
#include <umsync/memory/memory_span.hpp>
#include <umsync/memory/resource.hpp>
#include <umsync/stream_view.hpp>

#include <cuda/std/version>

#if !defined(CCCL_VERSION) || CCCL_VERSION < 3005000
#  error \
      "umsync: umsync/cccl.hpp needs CCCL 3.5 or later (cuda::stream, cuda::buffer, cuda::device_memory_pool); put that CCCL ahead of the CUDA toolkit's on the include path (docs/compatibility.md)"
#endif

#include <cuda/buffer>
#include <cuda/memory_pool>
#include <cuda/memory_resource>
#include <cuda/std/span>
#include <cuda/stream>

#include <cstddef>
#include <type_traits>

UMSYNC_NAMESPACE_BEGIN

/// A tagged view of a CCCL stream. The stream must outlive the view, as for stream_view<Tag>{h}.
template <class Tag>
[[nodiscard]] stream_view<Tag> adopt_stream(cuda::stream_ref stream) noexcept(!debug_build)
{
  return stream_view<Tag>{stream.get()};
}

/// A temporary cuda::stream is destroyed at the end of the statement: its view would dangle.
template <class Tag, class Stream>
  requires std::is_same_v<std::remove_cvref_t<Stream>, cuda::stream> &&
      (!std::is_lvalue_reference_v<Stream>)stream_view<Tag> adopt_stream(Stream&&) noexcept
  {
    static_assert(detail::dependent_false<Stream>,
                  "umsync: a stream_view adopted from a temporary cuda::stream would dangle (the stream is destroyed "
                  "at the end of the statement); keep the cuda::stream in a variable and adopt that");
    return legacy_default_stream<Tag>();
  }

  namespace detail {

  template <class Property, class... Properties>
  inline constexpr bool has_property = (std::is_same_v<Property, Properties> || ...);

  /// The umsync kind of a cuda::buffer with these properties; `Named` when the caller named one.
  template <memory_kind Named, bool Given, class... Properties>
  constexpr memory_kind cccl_buffer_kind() noexcept
  {
    constexpr bool device = has_property<cuda::mr::device_accessible, Properties...>;
    constexpr bool host = has_property<cuda::mr::host_accessible, Properties...>;
    if constexpr (!Given) {
      static_assert(device && !host,
                    "umsync: a cuda::buffer that is host accessible may be pinned or managed memory, which CCCL's type "
                    "does not say; name the kind: umsync::buffer_memory<umsync::memory_kind::managed>(buffer, s)");
      return memory_kind::device;
    } else {
      static_assert(Named != memory_kind::pageable_host, "umsync: a cuda::buffer is not pageable host memory");
      static_assert(Named != memory_kind::device || (device && !host),
                    "umsync: a host-accessible cuda::buffer is not device-only memory; name pinned_host or managed");
      static_assert(Named == memory_kind::device || (device && host),
                    "umsync: pinned and managed memory are accessible from host and device; this cuda::buffer's "
                    "properties do not say both");
      return Named;
    }
  }

  /// UMSYNC_DEBUG builds: the buffer's memory is allocated and freed on its own stream, so it is
  /// bound to that stream's tag only when `s` is that stream.
  inline void check_buffer_stream(cuda::stream_ref buffer_stream, cudaStream_t s)
  {
    if constexpr (debug_build) {
      if (buffer_stream.get() != s) [[unlikely]] {
        throw usage_error(
            "umsync::buffer_memory: the stream given is not the cuda::buffer's own stream (the one it is "
            "allocated and freed on); adopt the buffer's stream, umsync::adopt_stream<Tag>(buffer.stream()), "
            "or move the buffer there with its set_stream");
      }
    }
  }

  template <memory_kind Kind, bool Given, class T, class... Properties, class Tag>
  auto buffer_span(T* data, std::size_t size, cuda::stream_ref buffer_stream, stream_view<Tag> s)
  {
    check_buffer_stream(buffer_stream, s.get());
    return memory_span<T, cccl_buffer_kind<Kind, Given, Properties...>(), Tag>::adopt(data, size);
  }

  }  // namespace detail

  /// The memory of a device-only cuda::buffer (cuda::device_buffer<T>), bound to the tag of its own
  /// stream `s`: used on streams of that tag only, as a stream_buffer allocated on `s` is.
  template <class T, class... Properties, class Tag>
  [[nodiscard]] memory_span<T, memory_kind::device, Tag> buffer_memory(cuda::buffer<T, Properties...>& buffer,
                                                                       stream_view<Tag> s)
  {
    return detail::buffer_span<memory_kind::device, false, T, Properties...>(buffer.data(), buffer.size(),
                                                                             buffer.stream(), s);
  }
  template <class T, class... Properties, class Tag>
  [[nodiscard]] memory_span<T const, memory_kind::device, Tag> buffer_memory(
      cuda::buffer<T, Properties...> const& buffer, stream_view<Tag> s)
  {
    return detail::buffer_span<memory_kind::device, false, T const, Properties...>(buffer.data(), buffer.size(),
                                                                                   buffer.stream(), s);
  }

  /// The same for a host-accessible buffer, whose kind (pinned_host or managed) the caller names.
  template <memory_kind Kind, class T, class... Properties, class Tag>
  [[nodiscard]] memory_span<T, Kind, Tag> buffer_memory(cuda::buffer<T, Properties...>& buffer, stream_view<Tag> s)
  {
    return detail::buffer_span<Kind, true, T, Properties...>(buffer.data(), buffer.size(), buffer.stream(), s);
  }
  template <memory_kind Kind, class T, class... Properties, class Tag>
  [[nodiscard]] memory_span<T const, Kind, Tag> buffer_memory(cuda::buffer<T, Properties...> const& buffer,
                                                              stream_view<Tag> s)
  {
    return detail::buffer_span<Kind, true, T const, Properties...>(buffer.data(), buffer.size(), buffer.stream(), s);
  }

  /// A temporary cuda::buffer frees its memory at the end of the statement, before work that reads
  /// its span has run.
  template <class Buffer, class Tag>
    requires(!std::is_lvalue_reference_v<Buffer>)
  void buffer_memory(Buffer&&, stream_view<Tag>) = delete;

  /// CCCL's cuda::launch hook (found by ADL): an untagged memory_span reaches the kernel as a
  /// cuda::std::span of its elements, as a cuda::buffer does.
  template <class T, memory_kind Kind, class Tag>
  [[nodiscard]] cuda::std::span<T> transform_launch_argument(cuda::stream_ref, memory_span<T, Kind, Tag> span) noexcept
  {
    static_assert(Kind != memory_kind::pageable_host,
                  "umsync: a kernel cannot read pageable host memory; use pinned, managed or device memory");
    static_assert(
        std::is_same_v<Tag, untagged>,
        "umsync: cuda::launch gives its argument hook a cuda::stream_ref, which carries no stream tag, so "
        "memory bound to a tag cannot be checked there; launch it with umsync::launch on a stream of its tag");
    return cuda::std::span<T>(span.data(), span.size());
  }

  // The pools, each way: CCCL's device pool serves umsync's buffers, umsync's pools CCCL's.
  static_assert(stream_ordered_resource<cuda::device_memory_pool_ref>);
  static_assert(cuda::mr::resource_with<memory_pool_ref, cuda::mr::device_accessible>);

  UMSYNC_NAMESPACE_END
