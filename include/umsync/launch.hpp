// umsync/launch.hpp: a kernel launch that checks stream affinity at compile time.
//
//   umsync::launch(s, {.grid = 264, .block = 256}, scale, x, y, 2.0f);
//   umsync::launch(s, {.grid = 264, .block = 256, .cluster = {2, 1, 1}}, reduce, x, sums);
//   umsync::launch_dependent(s, {.grid = 264, .block = 256}, consume, x, y);  // PDL (pdl.hpp)
//
// Arguments that are memory (memory_range.hpp: umsync's buffers and spans, and any type that
// answers umsync_memory) become raw pointers for the kernel; memory bound to a stream tag other
// than the launch stream's does not compile, and neither does pageable host memory, which a
// kernel cannot read. Everything else is passed through unchanged. A failed launch throws
// cuda_error naming the launch's line. UMSYNC_DEBUG builds also check each argument at run
// time: memory, and a raw pointer into memory umsync allocated, with the ordering checker; a
// moved-from buffer, and pageable memory said to be another kind, with usage_error.
//
// A cluster shape or a programmatic dependent launch goes through cudaLaunchKernelExC, and is
// checked before CUDA sees it (invalid_argument, with the values): the grid divisible by the
// cluster and by the kernel's own __cluster_dims__, the cluster within what the device allows
// for that kernel, a device of compute capability 9.0 or newer, and for PDL a kernel binary
// built for sm_90 or newer, whose wait was not compiled out (NVIDIA/cccl #9134). Without either,
// launch is cudaLaunchKernel, as `<<<>>>` is: a grid that is not a multiple of the kernel's
// __cluster_dims__ is then refused with the same invalid_argument once CUDA has refused it
// (before, in UMSYNC_DEBUG builds). docs/pdl.md and docs/clusters.md give the rules.
#pragma once

#include <umsync/config.hpp>
#include <umsync/detail/debug/checker_hooks.hpp>
#include <umsync/detail/dependent_false.hpp>
#include <umsync/detail/indexed_values.hpp>
#include <umsync/detail/launch_check.hpp>
#include <umsync/error.hpp>
#include <umsync/launch_config.hpp>
#include <umsync/memory/detail/memory_argument.hpp>
#include <umsync/memory/memory_range.hpp>
#include <umsync/pdl.hpp>
#include <umsync/stream_view.hpp>

#include <cstddef>
#include <source_location>
#include <type_traits>
#include <utility>

UMSYNC_NAMESPACE_BEGIN

namespace detail {

template <class Param>
inline constexpr bool is_independent_parameter = false;
template <class T>
inline constexpr bool is_independent_parameter<independent<T>> = true;

/// UMSYNC_DEBUG: an independent<T> parameter's claim (no earlier work the launch may overlap
/// uses this memory) checked against what the ordering checker recorded on the stream: memory
/// by its span, a raw pointer as the rest of its allocation. Release builds do nothing.
template <class Pointer, class Argument>
void check_independent_argument(Argument& argument, cudaStream_t stream, std::source_location const& where)
{
  if constexpr (debug_build) {
    constexpr debug::access kind = std::is_const_v<std::remove_pointer_t<Pointer>> ? debug::access::read
                                                                                   : debug::access::write;
    if constexpr (memory_range<Argument>) {
      auto const memory = memory_of(argument);
      debug::check_independent_claim(memory.data(), memory.size_bytes(), stream, kind, where);
    } else if constexpr (std::is_pointer_v<std::remove_cv_t<Argument>> &&
                         !std::is_function_v<std::remove_pointer_t<std::remove_cv_t<Argument>>>) {
      void const volatile* const address = argument;
      debug::check_independent_claim(const_cast<void const*>(address), debug::unknown_extent, stream, kind, where);
    }
  } else {
    static_cast<void>(argument);
    static_cast<void>(stream);
    static_cast<void>(where);
  }
}

#if defined(UMSYNC_DEBUG)
/// UMSYNC_DEBUG: tells the ordering checker that a launch's argument accesses begin and end.
struct launch_noting {
  cudaStream_t stream;
  launch_noting(cudaStream_t s, bool dependent) : stream(s) { debug::note_launch(s, dependent); }
  launch_noting(launch_noting const&) = delete;
  launch_noting& operator=(launch_noting const&) = delete;
  ~launch_noting() { debug::note_launch_end(stream); }
};
#endif

/// What the kernel receives, as its parameter `Param`, for `argument` on a stream tagged
/// `StreamTag`. Memory counts as written when the parameter is T*, as read when it is T const*.
/// Each rule is checked here, where the argument meets its parameter, so a mistake is reported
/// by its rule and not by the cast in launch(); the rules for memory are library_call's too
/// (memory/detail/memory_argument.hpp).
template <class StreamTag, class Param, class Argument>
decltype(auto) kernel_argument(Argument&& argument, cudaStream_t stream, std::source_location const& where)
{
  if constexpr (pdl_parameter_by_value<Param>) {
    // pending<V> and independent<V> of memory held by value (a tensor map) take the value itself.
    using value = typename pdl_parameter<Param>::held_type;
    static_assert(std::is_same_v<std::remove_cvref_t<Argument>, value>,
                  "umsync: a pending<V> or independent<V> kernel parameter of a tensor map takes that tensor map");
    return pdl_parameter_access::make_value<Param>(argument);
  } else if constexpr (pdl_parameter<Param>::value) {
    // pending<T> and independent<T> (pdl.hpp) take memory under the rules of a T* parameter.
    using pointer = typename pdl_parameter<Param>::pointer;
    if constexpr (is_independent_parameter<Param>) {
      check_independent_argument<pointer>(argument, stream, where);
    }
    return pdl_parameter_access::make<Param>(
        static_cast<pointer>(kernel_argument<StreamTag, pointer>(std::forward<Argument>(argument), stream, where)));
  } else if constexpr (memory_range<std::remove_reference_t<Argument>>) {
    return memory_argument<pointer_receiver::kernel, StreamTag, Param>(argument, stream, "umsync::launch", where);
  } else if constexpr (!non_memory_argument_allowed<pointer_receiver::kernel, Param, Argument&&>()) {
    return rejected_argument<Param>();
  } else {
    note_raw_pointer_argument<Param>(argument, stream, where);
    return std::forward<Argument>(argument);
  }
}

/// Converts each argument under the memory protocol, then launches.
template <launch_mode Mode, class Stream, class... Params, class... Args>
void launch_kernel(Stream const& stream, launch_config const& config, void (*kernel)(Params...), Args&&... args)
{
  using tag = typename Stream::tag_type;
  using indices = std::index_sequence_for<Params...>;
#if defined(UMSYNC_DEBUG)
  launch_noting const noting(stream.get(), Mode == launch_mode::dependent);
#endif
  values_of<Params...> values{
      {static_cast<Params>(kernel_argument<tag, Params>(std::forward<Args>(args), stream.get(), config.where))}...};
  void const* const function = reinterpret_cast<void const*>(kernel);
  bool const extended = Mode == launch_mode::dependent || config.cluster.x != 0;
  if (extended) {
    check_launch_attributes(function, config, Mode);
  }
  [&]<std::size_t... Index>(std::index_sequence<Index...>)
  {
    void* pointers[] = {static_cast<void*>(&value_at<Index>(values))..., nullptr};
    if (!extended) {
#if defined(UMSYNC_DEBUG)
      check_compiled_cluster(function, config);  // before CUDA sees the launch
#endif
      cudaError_t const status = cudaLaunchKernel(function, config.grid, config.block, pointers, config.shared_bytes,
                                                  stream.get());
      if (status != cudaSuccess) [[unlikely]] {
        check_compiled_cluster(function, config);  // a grid of partial clusters is refused by its rule
      }
      check(status, "cudaLaunchKernel", config.where);
      return;
    }
    cudaLaunchAttribute attributes[2]{};
    unsigned count = 0;
    if (config.cluster.x != 0) {
      attributes[count].id = cudaLaunchAttributeClusterDimension;
      attributes[count].val.clusterDim.x = config.cluster.x;
      attributes[count].val.clusterDim.y = config.cluster.y;
      attributes[count].val.clusterDim.z = config.cluster.z;
      ++count;
    }
    if constexpr (Mode == launch_mode::dependent) {
      attributes[count].id = cudaLaunchAttributeProgrammaticStreamSerialization;
      attributes[count].val.programmaticStreamSerializationAllowed = 1;
      ++count;
    }
    cudaLaunchConfig_t launch{};
    launch.gridDim = config.grid;
    launch.blockDim = config.block;
    launch.dynamicSmemBytes = config.shared_bytes;
    launch.stream = stream.get();
    launch.attrs = attributes;
    launch.numAttrs = count;
    check(cudaLaunchKernelExC(&launch, function, pointers), "cudaLaunchKernelExC", config.where);
  }
  (indices{});
}

/// True when no parameter of a dependent kernel is a plain pointer.
template <class... Params>
inline constexpr bool no_plain_pointer_parameter = (!std::is_pointer_v<Params> && ...);
/// True when no parameter of a dependent kernel is memory held by value (a tensor map) left bare.
template <class... Params>
inline constexpr bool no_bare_value_memory_parameter = (!pdl_value_memory<std::remove_cv_t<Params>> && ...);

}  // namespace detail

/// Launches `kernel` on `stream`. Goes through cudaLaunchKernel, as `<<<>>>` does, so this
/// header also compiles in host-only translation units; with a cluster shape, through
/// cudaLaunchKernelExC.
template <stream_handle Stream, class... Params, class... Args>
void launch(Stream const& stream, launch_config const& config, void (*kernel)(Params...), Args&&... args)
{
  if constexpr (sizeof...(Params) != sizeof...(Args)) {
    static_assert(detail::dependent_false<Stream>, "umsync: launch needs one argument per kernel parameter");
  } else {
    detail::launch_kernel<detail::launch_mode::plain>(stream, config, kernel, std::forward<Args>(args)...);
  }
}

/// Launches `kernel` as a programmatic dependent launch: it may start before the kernel before
/// it on `stream` has finished (once that kernel calls trigger_dependent_launch() in every block,
/// or exits). Its memory parameters are pending<T> or independent<T> (pdl.hpp), never plain
/// pointers, so that nothing earlier work may still use is touched before the wait.
template <stream_handle Stream, class... Params, class... Args>
void launch_dependent(Stream const& stream, launch_config const& config, void (*kernel)(Params...), Args&&... args)
{
  if constexpr (sizeof...(Params) != sizeof...(Args)) {
    static_assert(detail::dependent_false<Stream>, "umsync: launch needs one argument per kernel parameter");
  } else if constexpr (!detail::no_plain_pointer_parameter<Params...>) {
    static_assert(detail::dependent_false<Stream>,
                  "umsync: a kernel launched with launch_dependent takes memory as umsync::pending<T> (earlier work "
                  "on the stream may still use it; opened after the wait) or umsync::independent<T>, never as a "
                  "plain pointer (pdl.hpp)");
  } else if constexpr (!detail::no_bare_value_memory_parameter<Params...>) {
    static_assert(detail::dependent_false<Stream>,
                  "umsync: a kernel launched with launch_dependent takes a tensor map as "
                  "umsync::pending<tensor_map<...>> (its copies wait for the earlier grids: NVIDIA/cutlass #2760) or "
                  "umsync::independent<tensor_map<...>>, never bare (pdl.hpp)");
  } else {
    detail::launch_kernel<detail::launch_mode::dependent>(stream, config, kernel, std::forward<Args>(args)...);
  }
}

/// A raw cudaStream_t names no tag to check memory against: adopt it as a view first.
template <class... Params, class... Args>
void launch(cudaStream_t, launch_config const&, void (*)(Params...), Args&&...)  // exists to reject with a message
{
  detail::reject_raw_stream<void (*)(Params...)>();
}

template <class... Params, class... Args>
void launch_dependent(cudaStream_t, launch_config const&, void (*)(Params...), Args&&...)  // rejects with a message
{
  detail::reject_raw_stream<void (*)(Params...)>();
}

UMSYNC_NAMESPACE_END
