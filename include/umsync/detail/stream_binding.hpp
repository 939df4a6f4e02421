// umsync/detail/stream_binding.hpp: the compile-time rule that ties memory to a stream tag.
//
// Memory bound to stream tag A (an async_pool_buffer allocated on a stream<A>, or a span of
// one) may be used only on streams tagged A. Untagged memory (spans adopted from raw
// pointers, pinned and managed memory) is the explicit untyped path: usable on any stream.
#pragma once

#include <umsync/config.hpp>
#include <umsync/stream_view.hpp>

#include <type_traits>

UMSYNC_NAMESPACE_BEGIN
namespace detail {

/// True when memory tagged `MemoryTag` may be used on a stream tagged `StreamTag`.
template <class MemoryTag, class StreamTag>
inline constexpr bool usable_on_stream = std::is_same_v<MemoryTag, untagged> || std::is_same_v<MemoryTag, StreamTag>;

/// The stream tag an argument is bound to, `untagged` when it is bound to none.
template <class T, class = void>
struct bound_tag {
  using type = untagged;
};
template <class T>
struct bound_tag<T, std::void_t<typename std::remove_cvref_t<T>::bound_tag_type>> {
  using type = typename std::remove_cvref_t<T>::bound_tag_type;
};
template <class T>
using bound_tag_t = typename bound_tag<T>::type;

}  // namespace detail
UMSYNC_NAMESPACE_END
