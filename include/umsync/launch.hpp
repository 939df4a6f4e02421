// umsync/launch.hpp: a kernel launch that checks stream affinity at compile time.
//
//   umsync::launch(s, {.grid = 264, .block = 256}, scale, x, y, 2.0f);
//
// Arguments that are memory (memory_range.hpp: umsync's buffers and spans, and any type that
// answers umsync_memory) become raw pointers for the kernel; memory bound to a stream tag other
// than the launch stream's does not compile, and neither does pageable host memory, which a
// kernel cannot read. Everything else is passed through unchanged. A failed launch throws
// cuda_error. UMSYNC_DEBUG builds also check each argument at run time: memory, and a raw
// pointer into memory umsync allocated, with the ordering checker; a moved-from buffer, and
// pageable memory said to be another kind, with usage_error.
#pragma once

#include <umsync/config.hpp>
#include <umsync/detail/debug/checker_hooks.hpp>
#include <umsync/detail/dependent_false.hpp>
#include <umsync/error.hpp>
#include <umsync/memory/memory_kind_check.hpp>
#include <umsync/memory/memory_range.hpp>
#include <umsync/stream_view.hpp>

#include <cstddef>
#include <cstdlib>
#include <source_location>
#include <tuple>
#include <type_traits>
#include <utility>

UMSYNC_NAMESPACE_BEGIN

struct launch_config {
  dim3 grid{1};
  dim3 block{1};
  std::size_t shared_bytes = 0;
  /// Where the launch is written (filled in at the call's `{...}`): named by the UMSYNC_DEBUG
  /// ordering checker.
  std::source_location where = std::source_location::current();
};

namespace detail {

template <class T>
inline constexpr bool is_pointer_to_writable = std::is_pointer_v<T> && !std::is_const_v<std::remove_pointer_t<T>>;

/// Stands in for an argument that broke a rule (its static_assert has fired), so that the
/// only error the user sees is the rule's.
template <class Param>
[[noreturn]] Param rejected_argument() noexcept
{
  std::abort();
}

/// What the kernel receives, as its parameter `Param`, for `argument` on a stream tagged
/// `StreamTag`. Memory counts as written when the parameter is T*, as read when it is T const*.
/// Each rule is checked here, where the argument meets its parameter, so a mistake is reported
/// by its rule and not by the cast in launch().
template <class StreamTag, class Param, class Argument>
decltype(auto) kernel_argument(Argument&& argument, cudaStream_t stream, std::source_location const& where)
{
  if constexpr (memory_range<std::remove_reference_t<Argument>>) {
    using span = memory_span_of_t<std::remove_reference_t<Argument>>;
    using element = typename span::element_type;
    constexpr bool host_only = span::kind == memory_kind::pageable_host;
    constexpr bool foreign = !usable_on_stream<typename span::bound_tag_type, StreamTag>;
    constexpr bool writes_read_only = is_pointer_to_writable<Param> && std::is_const_v<element>;
    constexpr bool other_element =
        !std::is_pointer_v<Param> ||
        !std::is_same_v<std::remove_cv_t<std::remove_pointer_t<Param>>, std::remove_const_t<element>>;
    static_assert(!host_only,
                  "umsync: a kernel cannot read pageable host memory; use pinned, managed or device memory");
    static_assert(!foreign, "umsync: memory bound to one stream is used on another stream; cross with "
                            "umsync::stream_dependency::transfer (an event edge) first");
    static_assert(!writes_read_only,
                  "umsync: read-only memory (a const buffer, a span of const, a shared view or a read-only phase's "
                  "view) is passed to a kernel parameter that may write it (T*); declare the parameter T const*, "
                  "or pass memory the caller may write");
    static_assert(writes_read_only || !other_element,
                  "umsync: memory is passed to a kernel parameter that is not a pointer to its element type; "
                  "umsync does not reinterpret memory: the parameter must be T* or T const* for memory of T");
    if constexpr (host_only || foreign || writes_read_only || other_element) {
      return rejected_argument<Param>();
    } else {
      auto const memory = memory_of(argument);
      // A kernel that takes T const* only reads, whatever the caller could have allowed.
      constexpr bool read_only = std::is_const_v<element> || !is_pointer_to_writable<Param>;
      debug_check_memory_kind(memory, debug::consumer::kernel, "umsync::launch", where);
      debug::note_access(memory.data(), memory.size_bytes(), stream,
                         read_only ? debug::access::read : debug::access::write, where);
      return memory.data();
    }
  } else if constexpr (!std::is_convertible_v<Argument&&, Param>) {
    static_assert(detail::dependent_false<Argument>,
                  "umsync: a launch argument does not convert to its kernel parameter; memory must be an umsync "
                  "buffer, a memory_span or a type that answers umsync_memory (memory/memory_range.hpp)");
    return rejected_argument<Param>();
  } else {
    using raw = std::remove_cvref_t<Argument>;
    if constexpr (debug_build && std::is_pointer_v<raw> && std::is_pointer_v<Param> &&
                  !std::is_function_v<std::remove_pointer_t<raw>>) {
      // UMSYNC_DEBUG: a raw pointer into memory umsync allocated (a buffer's data()) is checked
      // like the buffer, from the pointer to the end of its allocation; other pointers pass.
      void const volatile* const address = argument;
      debug::note_pointer_access(const_cast<void const*>(address), stream,
                                 is_pointer_to_writable<Param> ? debug::access::write : debug::access::read, where);
    }
    return std::forward<Argument>(argument);
  }
}

}  // namespace detail

/// Launches `kernel` on `stream`. Goes through cudaLaunchKernel, as `<<<>>>` does, so this
/// header also compiles in host-only translation units.
template <stream_handle Stream, class... Params, class... Args>
void launch(Stream const& stream, launch_config const& config, void (*kernel)(Params...), Args&&... args)
{
  if constexpr (sizeof...(Params) != sizeof...(Args)) {
    static_assert(detail::dependent_false<Stream>, "umsync: launch needs one argument per kernel parameter");
  } else {
    using tag = typename Stream::tag_type;
    std::tuple<Params...> values{static_cast<Params>(
        detail::kernel_argument<tag, Params>(std::forward<Args>(args), stream.get(), config.where))...};
    std::apply(
        [&](auto&... value) {
          void* pointers[] = {static_cast<void*>(&value)..., nullptr};
          check(cudaLaunchKernel(reinterpret_cast<void const*>(kernel), config.grid, config.block, pointers,
                                 config.shared_bytes, stream.get()),
                "cudaLaunchKernel");
        },
        values);
  }
}

/// A raw cudaStream_t names no tag to check memory against: adopt it as a view first.
template <class... Params, class... Args>
void launch(cudaStream_t, launch_config const&, void (*)(Params...), Args&&...)  // exists to reject with a message
{
  detail::reject_raw_stream<void (*)(Params...)>();
}

UMSYNC_NAMESPACE_END
