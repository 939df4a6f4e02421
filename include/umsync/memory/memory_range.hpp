// umsync/memory/memory_range.hpp: the one protocol that says what memory is.
//
// Everything in umsync that touches memory (launch, the copies, the NCCL collectives, advice and
// prefetch, the debug checker) asks one question of its argument: memory_of(x), a memory_span
// that gives the elements' address and count, the memory kind (device, pinned, managed,
// pageable), the stream tag the memory is bound to (untagged: none), and whether it is
// read-only (a span of const). Nothing else decides what is memory.
//
// A type takes part by answering through ADL, from its own namespace, without touching umsync:
//
//   namespace mylib {
//   struct device_vector { float* p; std::size_t n; ... };
//   umsync::device_span<float> umsync_memory(device_vector& v) { return umsync::device_span<float>::adopt(v.p, v.n); }
//   umsync::device_span<float const> umsync_memory(device_vector const& v) { ... }
//   }
//   umsync::launch(s, cfg, kernel, my_vector);   // checked like an umsync buffer
//
// The answer is a promise, as memory_span::adopt is: umsync cannot check that the pointer is
// the kind of memory it says. Memory bound to a stream says so with a tagged span
// (device_span<T, Tag>); such memory is then used on that stream's tag only.
#pragma once

#include <umsync/config.hpp>
#include <umsync/memory/memory_span.hpp>

#include <type_traits>
#include <utility>

UMSYNC_NAMESPACE_BEGIN
namespace detail {

template <class T>
inline constexpr bool is_memory_span = false;
template <class T, memory_kind Kind, class Tag>
inline constexpr bool is_memory_span<memory_span<T, Kind, Tag>> = true;

/// Found by ADL only: umsync's own buffers and the user's types define umsync_memory next to
/// their type (umsync's as hidden friends).
void umsync_memory() = delete;

template <class M>
// clang-format off
concept answers_memory = requires(M& m) {
  { umsync_memory(m) };
  // clang-format on
  requires is_memory_span<decltype(umsync_memory(m))>;
};

struct memory_of_fn {
  template <class M>
    requires is_memory_span<std::remove_cvref_t<M>> || answers_memory<std::remove_reference_t<M>>
  constexpr auto operator()(M&& m) const
  {
    if constexpr (is_memory_span<std::remove_cvref_t<M>>) {
      return std::remove_cvref_t<M>(m);
    } else {
      return umsync_memory(m);
    }
  }
};

}  // namespace detail

/// The memory_span of `m`: `m` itself when it is one, else what its umsync_memory answers.
inline constexpr detail::memory_of_fn memory_of{};

/// Memory umsync can check: a memory_span, or a type that answers umsync_memory.
template <class M>
// clang-format off
concept memory_range = requires(M& m) { memory_of(m); };
// clang-format on

/// The memory_span that `M` (a memory_range, maybe const) answers with.
template <memory_range M>
using memory_span_of_t = decltype(memory_of(std::declval<M&>()));

/// The kind of memory `M` holds.
template <memory_range M>
inline constexpr memory_kind memory_kind_of = memory_span_of_t<M>::kind;

/// True when memory tagged `MemoryTag` may be used on a stream tagged `StreamTag`: memory bound
/// to stream tag A (a stream_buffer allocated on a stream<A>, or a span of one) is used on
/// streams tagged A only; untagged memory (pinned, managed, spans adopted from raw pointers) is
/// the explicit untyped path, usable on any stream.
template <class MemoryTag, class StreamTag>
inline constexpr bool usable_on_stream = std::is_same_v<MemoryTag, untagged> || std::is_same_v<MemoryTag, StreamTag>;

namespace detail {

/// True for a temporary that may own its memory: anything but a memory_span. An owning
/// temporary is freed at the end of the full expression, before queued work that reads it
/// runs; a view of the user's own can be passed as memory_of(view), which is a span.
template <class M>
inline constexpr bool frees_memory_when_temporary = !is_memory_span<std::remove_cvref_t<M>>;

}  // namespace detail
UMSYNC_NAMESPACE_END
