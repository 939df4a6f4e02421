// umsync/launch.hpp: a kernel launch that checks stream affinity at compile time.
//
//   umsync::launch(s, {.grid = 264, .block = 256}, scale, x, y, 2.0f);
//
// Arguments that are memory (memory_range.hpp: umsync's buffers and spans, and any type that
// answers umsync_memory) become raw pointers for the kernel; memory bound to a stream tag other
// than the launch stream's does not compile, and neither does pageable host memory, which a
// kernel cannot read. Everything else is passed through unchanged. A failed launch throws
// cuda_error.
#pragma once

#include <umsync/config.hpp>
#include <umsync/detail/debug/checker_hooks.hpp>
#include <umsync/error.hpp>
#include <umsync/memory/memory_range.hpp>
#include <umsync/stream_view.hpp>

#include <cstddef>
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

/// What the kernel receives for `argument` on a stream tagged `StreamTag`. Memory passed
/// as writable counts as written, as read-only (const buffer, span of const) as read.
template <class StreamTag, class Argument>
decltype(auto) kernel_argument(Argument&& argument, cudaStream_t stream, std::source_location const& where)
{
  if constexpr (memory_range<std::remove_reference_t<Argument>>) {
    auto const memory = memory_of(argument);
    using span = decltype(memory);
    static_assert(span::kind != memory_kind::pageable_host,
                  "umsync: a kernel cannot read pageable host memory; use pinned, managed or device memory");
    static_assert(usable_on_stream<typename span::bound_tag_type, StreamTag>,
                  "umsync: memory bound to one stream is used on another stream; cross with "
                  "umsync::stream_dependency::transfer (an event edge) first");
    constexpr bool read_only = std::is_const_v<typename span::element_type>;
    debug::note_access(memory.data(), stream, read_only ? debug::access::read : debug::access::write, where);
    return memory.data();
  } else {
    return std::forward<Argument>(argument);
  }
}

}  // namespace detail

/// Launches `kernel` on `stream`. Goes through cudaLaunchKernel, as `<<<>>>` does, so this
/// header also compiles in host-only translation units.
template <stream_handle Stream, class... Params, class... Args>
void launch(Stream const& stream, launch_config const& config, void (*kernel)(Params...), Args&&... args)
{
  static_assert(sizeof...(Params) == sizeof...(Args), "umsync: launch needs one argument per kernel parameter");
  using tag = typename Stream::tag_type;
  std::tuple<Params...> values{
      static_cast<Params>(detail::kernel_argument<tag>(std::forward<Args>(args), stream.get(), config.where))...};
  std::apply(
      [&](auto&... value) {
        void* pointers[] = {static_cast<void*>(&value)..., nullptr};
        check(cudaLaunchKernel(reinterpret_cast<void const*>(kernel), config.grid, config.block, pointers,
                               config.shared_bytes, stream.get()),
              "cudaLaunchKernel");
      },
      values);
}

UMSYNC_NAMESPACE_END
