// umsync/launch.hpp: a kernel launch that checks stream affinity at compile time.
//
//   umsync::launch(s, {.grid = 264, .block = 256}, scale, x, y, 2.0f);
//
// Arguments that are umsync buffers or spans become raw pointers for the kernel; one bound to
// a stream tag other than the launch stream's does not compile. Everything else is passed
// through unchanged. A failed launch throws cuda_error.
#pragma once

#include <umsync/config.hpp>
#include <umsync/detail/stream_binding.hpp>
#include <umsync/error.hpp>
#include <umsync/memory/async_pool_buffer.hpp>
#include <umsync/memory/memory_span.hpp>
#include <umsync/stream_view.hpp>

#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

UMSYNC_NAMESPACE_BEGIN

struct launch_config {
  dim3 grid{1};
  dim3 block{1};
  std::size_t shared_bytes = 0;
};

namespace detail {

template <class T>
struct is_pool_buffer : std::false_type {};
template <class T, class Tag>
struct is_pool_buffer<async_pool_buffer<T, Tag>> : std::true_type {};
template <class T>
struct is_span : std::false_type {};
template <class T, memory_kind Kind, class Tag>
struct is_span<memory_span<T, Kind, Tag>> : std::true_type {};

/// What the kernel receives for `argument` on a stream tagged `StreamTag`.
template <class StreamTag, class Argument>
decltype(auto) kernel_argument(Argument&& argument)
{
  using plain = std::remove_cvref_t<Argument>;
  if constexpr (is_pool_buffer<plain>::value || is_span<plain>::value) {
    static_assert(usable_on_stream<bound_tag_t<plain>, StreamTag>,
                  "umsync: memory bound to one stream is used on another stream; cross with "
                  "umsync::stream_dependency::transfer (an event edge) first");
    return argument.data();
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
  std::tuple<Params...> values{static_cast<Params>(detail::kernel_argument<tag>(std::forward<Args>(args)))...};
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
