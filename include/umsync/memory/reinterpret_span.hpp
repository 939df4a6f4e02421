// umsync/memory/reinterpret_span.hpp: the same memory seen as elements of another type.
//
//   umsync::stream_buffer<float, compute> x(4 * n, s);
//   auto x4 = umsync::reinterpret_span<float4>(x);             // device_span<float4, compute>, n elements
//   auto r4 = umsync::reinterpret_span<float4 const>(x_const); // read-only stays read-only
//   umsync::launch(s, cfg, vectorized_kernel, x4, n);          // float4* parameter, tag checked
//
// Vectorized kernels read float memory as float4. reinterpret_span gives that view of any memory
// (memory_range.hpp: umsync's buffers and spans, and any type that answers umsync_memory) without
// memory_span::adopt of a raw pointer: the view keeps the memory's kind, its stream tag and its
// bounds, and read-only memory gives a span of const only. Like std::as_bytes, the bytes stay
// what they are; only their element type changes, so both types must be trivially copyable.
//
// What the types decide does not compile: dropping const, an element type that is not trivially
// copyable, a temporary buffer (freed at the end of the statement, the view would dangle). What
// only the memory knows throws umsync::invalid_argument naming the caller's line: an address not
// aligned for the new element, or a byte size that is not a multiple of it. Both checks compile
// away where the types settle them (float4 to float: always aligned, always a multiple).
#pragma once

#include <umsync/config.hpp>
#include <umsync/detail/dependent_false.hpp>
#include <umsync/error.hpp>
#include <umsync/memory/memory_range.hpp>
#include <umsync/memory/memory_span.hpp>

#include <cstddef>
#include <cstdint>
#include <source_location>
#include <type_traits>

UMSYNC_NAMESPACE_BEGIN
namespace detail {

/// The failure of reinterpret_span, out of line: built only when the memory does not fit.
[[noreturn, gnu::cold, gnu::noinline]] inline void throw_reinterpret_mismatch(
    bool aligned, std::size_t bytes, std::size_t element_size, std::size_t alignment, std::source_location const& where)
{
  if (!aligned) {
    throw invalid_argument("reinterpret_span: the memory's address is not aligned to ", alignment, " bytes (", where,
                           ")");
  }
  throw invalid_argument("reinterpret_span: a span of ", bytes, " bytes is not a whole number of elements of ",
                         element_size, " bytes (", where, ")");
}

}  // namespace detail

/// `memory` seen as elements of `U`: the same bytes, kind and stream tag, `size_bytes() /
/// sizeof(U)` elements. `U` is const when the memory is read-only.
template <class U, class M>
[[nodiscard]] auto reinterpret_span(M&& memory, std::source_location where = std::source_location::current())
{
  using memory_type = std::remove_reference_t<M>;
  if constexpr (!memory_range<memory_type>) {
    static_assert(detail::dependent_false<M>, "umsync: reinterpret_span takes memory: an umsync buffer, a "
                                              "memory_span or a type that answers umsync_memory");
    return memory_span<U, memory_kind::device>{};
  } else {
    using span = memory_span_of_t<memory_type>;
    using element = typename span::element_type;
    constexpr bool object = std::is_object_v<U> && !std::is_array_v<U> && !std::is_void_v<U>;
    constexpr bool copyable = std::is_trivially_copyable_v<element> && (!object || std::is_trivially_copyable_v<U>);
    constexpr bool drops_const = std::is_const_v<element> && !std::is_const_v<U>;
    constexpr bool temporary = detail::frees_memory_when_temporary<M> && std::is_rvalue_reference_v<M&&>;
    static_assert(object, "umsync: reinterpret_span's element type must be a complete object type, not a reference, "
                          "an array or void");
    static_assert(copyable, "umsync: reinterpret_span views trivially copyable elements as trivially copyable "
                            "elements only (the bytes stay what they are)");
    static_assert(!drops_const, "umsync: reinterpret_span of read-only memory must be a span of const "
                                "(reinterpret_span<U const>)");
    static_assert(!temporary, "umsync: reinterpret_span of a temporary buffer: it is freed at the end of the "
                              "statement and the view would dangle");
    using result = memory_span<U, span::kind, typename span::bound_tag_type>;
    if constexpr (!object || !copyable || drops_const || temporary) {
      return result{};
    } else {
      span const from = memory_of(memory);
      // The checks the types settle compile away: T's alignment covers U's, T's size is whole U's.
      constexpr bool always_aligned = alignof(element) % alignof(U) == 0;
      constexpr bool always_whole = sizeof(element) % sizeof(U) == 0;
      bool const aligned = always_aligned || reinterpret_cast<std::uintptr_t>(from.data()) % alignof(U) == 0;
      bool const whole = always_whole || from.size_bytes() % sizeof(U) == 0;
      if (!aligned || !whole) {
        detail::throw_reinterpret_mismatch(aligned, from.size_bytes(), sizeof(U), alignof(U), where);
      }
      // The bytes are the memory's own; the caller's kernel reads them as U (as std::as_bytes does).
      return result::adopt(reinterpret_cast<U*>(from.data()), from.size_bytes() / sizeof(U));
    }
  }
}

UMSYNC_NAMESPACE_END
