// umsync/memory/copy.hpp: typed copies between device, pinned and managed memory.
//
//   umsync::copy_async(dst, src, stream);            // device/pinned/managed only, never blocks
//   umsync::copy_sync_pageable(dst, host_vector, stream);  // pageable host memory: blocks
//
// cudaMemcpyAsync with a pageable host pointer silently becomes a synchronous copy staged
// through a driver buffer: the host stalls and no overlap happens. So async copies accept
// only memory whose kind is known to be device, pinned or managed (memory_range.hpp: umsync's
// buffers and spans, and any type that answers umsync_memory); pageable memory (a
// std::vector, a pageable_span) has its own, differently named, blocking call.
#pragma once

#include <umsync/capture/non_capturing_stream.hpp>
#include <umsync/config.hpp>
#include <umsync/detail/capture_check.hpp>
#include <umsync/detail/debug/checker_hooks.hpp>
#include <umsync/detail/dependent_false.hpp>
#include <umsync/error.hpp>
#include <umsync/memory/detail/memory_kind_check.hpp>
#include <umsync/memory/memory_range.hpp>
#include <umsync/memory/memory_span.hpp>
#include <umsync/stream_view.hpp>

#include <concepts>
#include <cstddef>
#include <source_location>
#include <type_traits>

UMSYNC_NAMESPACE_BEGIN
namespace detail {

/// Memory an async copy can name: a memory_range whose kind is not pageable host memory.
template <class M>
concept async_copy_operand = memory_range<std::remove_reference_t<M>> && memory_kind_of<std::remove_reference_t<M>>
!= memory_kind::pageable_host;

/// A contiguous host range umsync knows nothing of: std::vector, std::span, std::array,
/// std::string (members data() and size(); no <ranges>, which is costly to compile).
template <class Host>
concept contiguous_host_range = requires(Host& host)
{
  {
    host.data()
    } -> std::convertible_to<void const*>;
  {
    host.size()
    } -> std::convertible_to<std::size_t>;
};

/// The host side of copy_sync_pageable: pageable memory (a pageable_span or a type that says
/// pageable), or a contiguous host range.
template <class Host>
auto pageable_side(Host&& host)
{
  if constexpr (memory_range<std::remove_reference_t<Host>>) {
    return memory_of(host);
  } else if constexpr (!contiguous_host_range<std::remove_reference_t<Host>>) {
    static_assert(dependent_false<Host>,
                  "umsync: the pageable side of a copy must be a contiguous range (std::vector, std::span, array)");
    return pageable_span<char>{};
  } else {
    using element = std::remove_pointer_t<decltype(host.data())>;
    return pageable_span<element>::adopt(host.data(), host.size());
  }
}

template <class Src>
constexpr void reject_temporary_source()
{
  static_assert(!(frees_memory_when_temporary<Src> && std::is_rvalue_reference_v<Src&&>),
                "umsync: async copy from a temporary buffer: it would be freed before the copy runs");
}

template <class DstSpan, class SrcSpan, class StreamTag>
void copy_spans(DstSpan dst, SrcSpan src, stream_view<StreamTag> stream, std::source_location const& where)
{
  using dst_element = typename DstSpan::element_type;
  using src_element = typename SrcSpan::element_type;
  constexpr bool read_only_destination = std::is_const_v<dst_element>;
  constexpr bool same_element = std::is_same_v<std::remove_const_t<src_element>, std::remove_const_t<dst_element>>;
  constexpr bool foreign = !usable_on_stream<typename DstSpan::bound_tag_type, StreamTag> ||
                           !usable_on_stream<typename SrcSpan::bound_tag_type, StreamTag>;
  static_assert(!read_only_destination, "umsync: the destination of a copy must be writable");
  static_assert(same_element, "umsync: a copy's source and destination must have the same element type");
  static_assert(!foreign, "umsync: memory bound to one stream is used on another stream; cross with "
                          "umsync::stream_edge::transfer (an event edge) first");
  if constexpr (!read_only_destination && same_element && !foreign) {  // else rejected above, and only so
    if (dst.size() < src.size()) {
      throw length_error("copy of ", src.size(), " elements into ", dst.size());
    }
    if (src.empty()) {
      return;
    }
    detail::debug_check_memory_kind(src, detail::debug::consumer::copy, "umsync copy (source)", where);
    detail::debug_check_memory_kind(dst, detail::debug::consumer::copy, "umsync copy (destination)", where);
    detail::debug::note_access(src.data(), src.size_bytes(), stream.get(), detail::debug::access::read, where);
    detail::debug::note_access(dst.data(), src.size_bytes(), stream.get(), detail::debug::access::write, where);
    check(cudaMemcpyAsync(dst.data(), src.data(), src.size_bytes(), cudaMemcpyDefault, stream.get()), "cudaMemcpyAsync",
          where);
  }
}

}  // namespace detail

/// Copies all of `src` into the front of `dst`, ordered on `stream`; never blocks the host.
/// Both sides are device, pinned or managed memory. `dst` smaller than `src` throws
/// umsync::length_error (a std::length_error).
template <class Dst, class Src, stream_handle Stream>
void copy_async(Dst&& dst, Src&& src, Stream const& stream,
                std::source_location where = std::source_location::current())
{
  if constexpr (!detail::async_copy_operand<Dst> || !detail::async_copy_operand<Src>) {
    static_assert(detail::dependent_false<Dst, Src>,
                  "umsync: async copies take device, pinned or managed memory (umsync buffers or memory_span); a "
                  "pageable host pointer would make the copy block the host: use umsync::copy_sync_pageable");
  } else {
    detail::reject_temporary_source<Src>();
    using tag = typename Stream::tag_type;
    detail::copy_spans(memory_of(dst), memory_of(src), stream_view<tag>{stream.get()}, where);
  }
}

/// Copies between pageable host memory (a contiguous range: std::vector, std::span, array, or a
/// pageable_span) and device, pinned or managed memory, then waits for the copy and everything
/// before it on `stream`: the host blocks. Exactly one side is the host range.
template <class Dst, class Src, stream_handle Stream>
void copy_sync_pageable(Dst&& dst, Src&& src, Stream const& stream,
                        std::source_location where = std::source_location::current())
{
  forbid_in_capture<capture_unsafe::host_sync, Stream>();  // it synchronizes the stream
  using tag = typename Stream::tag_type;
  constexpr bool dst_is_host = !detail::async_copy_operand<Dst>;
  constexpr bool src_is_host = !detail::async_copy_operand<Src>;
  static_assert(dst_is_host != src_is_host,
                "umsync: copy_sync_pageable copies between one pageable host range and one umsync buffer or span");
  // A view of a capturing stream: refused before the copy is queued, the capture stays valid.
  detail::refuse_in_capture(stream.get(), "cudaStreamSynchronize (copy_sync_pageable)", where);
  if constexpr (src_is_host) {
    detail::copy_spans(memory_of(dst), detail::pageable_side(src), stream_view<tag>{stream.get()}, where);
  } else {
    detail::copy_spans(detail::pageable_side(dst), memory_of(src), stream_view<tag>{stream.get()}, where);
  }
  check(cudaStreamSynchronize(stream.get()), "cudaStreamSynchronize (copy_sync_pageable)", where);
  detail::debug::note_host_waited_for_stream(stream.get());
}

/// A raw cudaStream_t names no tag to check the memory against: adopt it as a view first.
template <class Dst, class Src>
void copy_async(Dst&&, Src&&, cudaStream_t)  // exists to reject with a message
{
  detail::reject_raw_stream<Dst>();
}
template <class Dst, class Src>
void copy_sync_pageable(Dst&&, Src&&, cudaStream_t)  // exists to reject with a message
{
  detail::reject_raw_stream<Dst>();
}

UMSYNC_NAMESPACE_END
