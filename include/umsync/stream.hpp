// umsync/stream.hpp: an owning, move-only CUDA stream with a compile-time affinity tag.
//
//   struct compute {};
//   umsync::stream<compute> s;                       // non-blocking, default priority
//   umsync::stream<compute> urgent{{.priority = -1}};  // lower is more urgent
//   kernel<<<grid, block, 0, s.view()>>>(...);
//
// Non-blocking by default: a blocking stream silently serializes with the legacy default
// stream, which is the cross-stream surprise umsync exists to remove.
#pragma once

#include <umsync/config.hpp>
#include <umsync/detail/debug/checker_hooks.hpp>
#include <umsync/detail/dependent_false.hpp>
#include <umsync/detail/unique_handle.hpp>
#include <umsync/error.hpp>
#include <umsync/stream_view.hpp>

#include <concepts>
#include <cstddef>
#include <source_location>

UMSYNC_NAMESPACE_BEGIN

struct stream_options {
  /// False makes a blocking stream, which synchronizes with the legacy default stream.
  bool non_blocking = true;
  /// Within the device's range (cudaDeviceGetStreamPriorityRange); lower is more urgent.
  int priority = 0;
};

/// The device's stream priority range: `greatest` (most urgent) is numerically lowest.
struct stream_priority_range {
  int least = 0;
  int greatest = 0;
  [[nodiscard]] constexpr bool contains(int p) const noexcept { return p <= least && p >= greatest; }
};

[[nodiscard]] inline stream_priority_range stream_priorities(
    std::source_location where = std::source_location::current())
{
  stream_priority_range range;
  check(cudaDeviceGetStreamPriorityRange(&range.least, &range.greatest), "cudaDeviceGetStreamPriorityRange", where);
  return range;
}

namespace detail {

/// What every stream<Tag> constructor does, out of line: one body per translation unit rather
/// than one per tag.
[[nodiscard]] cudaStream_t create_stream(stream_options options, std::source_location const& where);

struct destroy_stream {
  void operator()(cudaStream_t handle) const noexcept
  {
    report_in_destructor(cudaStreamDestroy(handle), "cudaStreamDestroy");
    debug::note_stream_destroyed(handle);
  }
};

}  // namespace detail

template <class Tag = untagged>
class stream {
 public:
  using tag_type = Tag;

  /// Creates a stream on the current device. A priority outside the device's range throws
  /// umsync::out_of_range (the runtime would clamp it silently).
  explicit stream(stream_options options = {}, std::source_location where = std::source_location::current())
      : handle_(detail::create_stream(options, where))
  {}

  template <std::integral Zero>
  stream(Zero)  // NOLINT: exists to reject stream{0} with a message
  {
    static_assert(detail::dependent_false<Zero>,
                  "umsync: a stream cannot be made from 0 or nullptr; the legacy "
                  "default stream is an explicit choice: umsync::legacy_default_stream()");
  }
  template <std::same_as<std::nullptr_t> Null>
  stream(Null)  // NOLINT: exists to reject stream{nullptr} with a message
  {
    static_assert(detail::dependent_false<Null>,
                  "umsync: a stream cannot be made from 0 or nullptr; the legacy "
                  "default stream is an explicit choice: umsync::legacy_default_stream()");
  }

  /// The raw handle. Throws usage_error on a moved-from stream: a null handle would mean
  /// the legacy default stream, the silent mistake this type exists to prevent.
  [[nodiscard]] cudaStream_t get() const { return handle_.get_or_throw("umsync::stream"); }

  [[nodiscard]] stream_view<Tag> view() const& { return stream_view<Tag>{get()}; }
  stream_view<Tag> view() const&& = delete;              // a view of a temporary would dangle
  operator stream_view<Tag>() const& { return view(); }  // NOLINT: pass a stream where a view is wanted
  operator stream_view<Tag>() const&& = delete;
  template <detail::foreign_stream_ref StreamRef>
  operator StreamRef() const& noexcept  // NOLINT: CCCL interop (cuda::stream_ref), as stream_view
  {
    return StreamRef(get());
  }

  void synchronize(std::source_location where = std::source_location::current()) const { view().synchronize(where); }
  [[nodiscard]] bool ready(std::source_location where = std::source_location::current()) const
  {
    return view().ready(where);
  }
  template <event_handle Event>
  void wait(Event const& e, std::source_location where = std::source_location::current()) const
  {
    view().wait(e, where);
  }
  [[nodiscard]] int priority(std::source_location where = std::source_location::current()) const
  {
    return view().priority(where);
  }

 private:
  detail::unique_handle<cudaStream_t, detail::destroy_stream> handle_;
};

// The compiled part of this header (config.hpp: inline here, or compiled once with
// UMSYNC_SEPARATE_COMPILATION).
#if UMSYNC_DETAIL_COMPILED_BODIES
namespace detail {

[[gnu::noinline]] UMSYNC_DETAIL_COMPILED cudaStream_t create_stream(stream_options options,
                                                                    std::source_location const& where)
{
  auto const range = stream_priorities(where);
  if (!range.contains(options.priority)) {
    throw out_of_range("stream priority ", options.priority, " is outside the device's range [", range.greatest, ", ",
                       range.least, "] (lower is more urgent)");
  }
  unsigned const flags = options.non_blocking ? cudaStreamNonBlocking : cudaStreamDefault;
  cudaStream_t handle = nullptr;
  check(cudaStreamCreateWithPriority(&handle, flags, options.priority), "cudaStreamCreateWithPriority", where);
  if (!options.non_blocking) {
    debug::note_blocking_stream(handle);  // the checker models its legacy-stream sync
  }
  return handle;
}

}  // namespace detail
#endif  // UMSYNC_DETAIL_COMPILED_BODIES

UMSYNC_NAMESPACE_END
