// umsync/memory/fill.hpp: typed fills of device, pinned or managed memory on a tagged stream.
//
//   umsync::stream<compute> s;
//   umsync::stream_buffer<float, compute> grads(n, s);
//   umsync::fill(s, grads, 0.0F);                        // every float: cuMemsetD32Async
//   umsync::fill(s, mask.first(k), std::uint8_t{1});     // a slice of bytes: cuMemsetD8Async
//   umsync::memset_bytes(s, moments, 0);                 // every byte, any element: cudaMemsetAsync
//
// fill sets every element to `value`, for trivially copyable elements of 1, 2 or 4 bytes (the
// sizes the driver's cuMemsetD8/16/32Async set: a float, an int, a half, a bf16 pair). It goes
// to the driver, reached through the runtime (detail/driver_entry.hpp), not to a kernel: a
// memset needs no kernel per element type, compiles in host-only translation units, and is
// captured into a graph as a memset node. memset_bytes sets every byte (cudaMemsetAsync), for
// elements fill cannot set (a double or a float4 set to zero).
//
// The rules are a copy's destination's (memory/copy.hpp): device, pinned or managed memory
// only; read-only memory, memory bound to another stream's tag and a temporary buffer (freed
// before the fill runs) do not compile. UMSYNC_DEBUG builds check the memory's kind and note the
// write with the ordering checker. A failing call throws cuda_error naming the caller's line.
#pragma once

#include <umsync/config.hpp>
#include <umsync/detail/debug/checker_hooks.hpp>
#include <umsync/detail/dependent_false.hpp>
#include <umsync/detail/driver_entry.hpp>
#include <umsync/error.hpp>
#include <umsync/memory/detail/memory_kind_check.hpp>
#include <umsync/memory/memory_range.hpp>
#include <umsync/stream_view.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <source_location>
#include <type_traits>

UMSYNC_NAMESPACE_BEGIN
namespace detail {

enum class fill_call { fill, memset_bytes };

/// States the rules for filling memory `M` (as forwarded) on a stream tagged `StreamTag`; true
/// when none is broken. Only the broken rules' messages are given.
template <fill_call Call, class M, class StreamTag>
constexpr bool fill_allowed() noexcept
{
  using memory = std::remove_reference_t<M>;
  if constexpr (!memory_range<memory>) {
    static_assert(dependent_false<M>, "umsync: a fill takes device, pinned or managed memory (an umsync buffer, a "
                                      "memory_span or a type that answers umsync_memory)");
    return false;
  } else {
    using span = memory_span_of_t<memory>;
    using element = typename span::element_type;
    constexpr bool pageable = span::kind == memory_kind::pageable_host;
    constexpr bool read_only = std::is_const_v<element>;
    constexpr bool foreign = !usable_on_stream<typename span::bound_tag_type, StreamTag>;
    constexpr bool temporary = frees_memory_when_temporary<M> && std::is_rvalue_reference_v<M&&>;
    constexpr bool element_size = Call == fill_call::memset_bytes ||
                                  (std::is_trivially_copyable_v<element> &&
                                   (sizeof(element) == 1 || sizeof(element) == 2 || sizeof(element) == 4));
    static_assert(!pageable, "umsync: a fill cannot set pageable host memory (the device sets it later); use "
                             "pinned, managed or device memory, or std::fill on the host");
    static_assert(!read_only, "umsync: the destination of a fill must be writable");
    static_assert(!foreign, "umsync: memory bound to one stream is used on another stream; cross with "
                            "umsync::stream_edge::transfer (an event edge) first");
    static_assert(!temporary, "umsync: fill of a temporary buffer: it would be freed before the fill runs");
    static_assert(element_size, "umsync: fill sets trivially copyable elements of 1, 2 or 4 bytes "
                                "(cuMemsetD8/16/32Async); set other elements with umsync::memset_bytes or a kernel");
    return !pageable && !read_only && !foreign && !temporary && element_size;
  }
}

using memset_d8_fn = driver_result (*)(driver_pointer, unsigned char, std::size_t, cudaStream_t);
using memset_d16_fn = driver_result (*)(driver_pointer, unsigned short, std::size_t, cudaStream_t);
using memset_d32_fn = driver_result (*)(driver_pointer, unsigned int, std::size_t, cudaStream_t);

/// Queues the driver memset of `count` words of `Word`'s size, each `word`, at `address`.
template <class Word>
void driver_memset(void* address, Word word, std::size_t count, cudaStream_t stream, std::source_location const& where)
{
  auto const device = reinterpret_cast<driver_pointer>(address);
  if constexpr (sizeof(Word) == 1) {
    static auto const set = driver_function<memset_d8_fn>("cuMemsetD8Async", where);
    check_driver(set(device, word, count, stream), "cuMemsetD8Async", where);
  } else if constexpr (sizeof(Word) == 2) {
    static auto const set = driver_function<memset_d16_fn>("cuMemsetD16Async", where);
    check_driver(set(device, word, count, stream), "cuMemsetD16Async", where);
  } else {
    static auto const set = driver_function<memset_d32_fn>("cuMemsetD32Async", where);
    check_driver(set(device, word, count, stream), "cuMemsetD32Async", where);
  }
}

template <class Span>
void note_fill(Span const& span, cudaStream_t stream, char const* operation, std::source_location const& where)
{
  debug_check_memory_kind(span, debug::consumer::copy, operation, where);
  debug::note_access(span.data(), span.size_bytes(), stream, debug::access::write, where);
}

}  // namespace detail

/// Sets every element of `memory` to `value`, ordered on `stream`; never blocks the host.
template <stream_handle Stream, class M, class Value>
void fill(Stream const& stream, M&& memory, Value const& value,
          std::source_location where = std::source_location::current())
{
  if constexpr (detail::fill_allowed<detail::fill_call::fill, M, typename Stream::tag_type>()) {
    auto const span = memory_of(memory);
    using element = std::remove_const_t<typename decltype(span)::element_type>;
    if constexpr (!std::is_convertible_v<Value const&, element>) {
      static_assert(detail::dependent_false<Value>, "umsync: a fill's value does not convert to the memory's element");
    } else {
      if (span.empty()) {
        return;
      }
      element const as_element = value;
      using word = std::conditional_t<sizeof(element) == 1, unsigned char,
                                      std::conditional_t<sizeof(element) == 2, unsigned short, unsigned int>>;
      word bits = 0;
      std::memcpy(&bits, &as_element, sizeof bits);
      detail::note_fill(span, stream.get(), "umsync::fill", where);
      detail::driver_memset(static_cast<void*>(span.data()), bits, span.size(), stream.get(), where);
    }
  }
}

/// Sets every byte of `memory` to `byte`, ordered on `stream`; never blocks the host.
template <stream_handle Stream, class M>
void memset_bytes(Stream const& stream, M&& memory, unsigned char byte,
                  std::source_location where = std::source_location::current())
{
  if constexpr (detail::fill_allowed<detail::fill_call::memset_bytes, M, typename Stream::tag_type>()) {
    auto const span = memory_of(memory);
    if (span.empty()) {
      return;
    }
    detail::note_fill(span, stream.get(), "umsync::memset_bytes", where);
    check(cudaMemsetAsync(static_cast<void*>(span.data()), byte, span.size_bytes(), stream.get()), "cudaMemsetAsync",
          where);
  }
}

/// A raw cudaStream_t names no tag to check the memory against: adopt it as a view first.
template <class M, class Value>
void fill(cudaStream_t, M&&, Value const&)  // exists to reject with a message
{
  detail::reject_raw_stream<M>();
}
template <class M>
void memset_bytes(cudaStream_t, M&&, unsigned char)  // exists to reject with a message
{
  detail::reject_raw_stream<M>();
}

UMSYNC_NAMESPACE_END
