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
#include <umsync/memory/memory_argument.hpp>
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

/// What the kernel receives, as its parameter `Param`, for `argument` on a stream tagged
/// `StreamTag`. Memory counts as written when the parameter is T*, as read when it is T const*.
/// Each rule is checked here, where the argument meets its parameter, so a mistake is reported
/// by its rule and not by the cast in launch(); the rules for memory are library_call's too
/// (memory/memory_argument.hpp).
template <class StreamTag, class Param, class Argument>
decltype(auto) kernel_argument(Argument&& argument, cudaStream_t stream, std::source_location const& where)
{
  if constexpr (memory_range<std::remove_reference_t<Argument>>) {
    return memory_argument<pointer_receiver::kernel, StreamTag, Param>(argument, stream, "umsync::launch", where);
  } else if constexpr (!std::is_convertible_v<Argument&&, Param>) {
    static_assert(detail::dependent_false<Argument>,
                  "umsync: a launch argument does not convert to its kernel parameter; memory must be an umsync "
                  "buffer, a memory_span or a type that answers umsync_memory (memory/memory_range.hpp)");
    return rejected_argument<Param>();
  } else {
    note_raw_pointer_argument<Param>(argument, stream, where);
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
