// umsync/stream_view.hpp: a non-owning, tagged view of a CUDA stream.
//
// A stream's tag is a type the user picks (`struct compute {};`). Buffers and dependency
// tokens carry the tag of the stream they are bound to, so using them on a stream with
// another tag does not compile. `untagged` streams take part in no such checks.
//
// The legacy default stream (handle 0) synchronizes with every blocking stream; umsync never
// falls into it by accident: a view cannot be made from 0 or nullptr, a null cudaStream_t
// adopted at run time is refused in UMSYNC_DEBUG builds, and the default streams are named
// functions.
//
// A host synchronization of a stream that is being captured (synchronize(), ready()) would
// fail and invalidate the capture: both are refused with capture_error before CUDA sees them.
#pragma once

#include <umsync/config.hpp>
#include <umsync/detail/capture_check.hpp>
#include <umsync/detail/debug/checker_hooks.hpp>
#include <umsync/detail/dependent_false.hpp>
#include <umsync/error.hpp>

#include <concepts>
#include <cstddef>
#include <source_location>
#include <type_traits>

UMSYNC_NAMESPACE_BEGIN

/// The tag of streams that take part in no compile-time affinity checks.
struct untagged {};

/// Anything that names a CUDA stream and its affinity tag: umsync::stream and stream_view.
template <class S>
// clang-format off
concept stream_handle = requires(S const& s) {
  typename S::tag_type;
  { s.get() } -> std::same_as<cudaStream_t>;
};
// clang-format on

/// Anything that names a CUDA event: umsync::event and timed_event.
template <class E>
// clang-format off
concept event_handle = requires(E const& e) {
  { e.get() } -> std::same_as<cudaEvent_t>;
};
// clang-format on

namespace detail {
/// A non-owning stream reference of another library, as cuda::stream_ref is: a class whose
/// value_type is cudaStream_t, made from one and read back with get(), and no umsync stream.
/// Named by its shape, so that every umsync header need not include <cuda/stream_ref>.
template <class R>
// clang-format off
concept foreign_stream_ref = std::is_class_v<R> && !stream_handle<R> && requires(R const& ref) {
  requires std::same_as<typename R::value_type, cudaStream_t>;
  { ref.get() } -> std::same_as<cudaStream_t>;
} && std::is_nothrow_constructible_v<R, cudaStream_t>;
// clang-format on
}  // namespace detail

template <class Tag = untagged>
class stream_view {
 public:
  using tag_type = Tag;

  /// Adopts a stream created elsewhere (a library's, a framework's). It must outlive the view.
  /// A null handle would silently be the legacy default stream: UMSYNC_DEBUG builds refuse it
  /// at run time with usage_error (legacy_default_stream() names that stream on purpose).
  constexpr explicit stream_view(cudaStream_t handle) noexcept(!debug_build) : handle_(handle)
  {
    if constexpr (debug_build) {
      if (!std::is_constant_evaluated() && handle == nullptr) [[unlikely]] {
        throw usage_error("a stream_view was made from a null cudaStream_t, which CUDA reads as the legacy default "
                          "stream (it synchronizes with every blocking stream); if that stream is meant, say so "
                          "with umsync::legacy_default_stream()");
      }
    }
  }

  template <std::integral Zero>
  stream_view(Zero)  // NOLINT: exists to reject stream_view{0} with a message
  {
    static_assert(detail::dependent_false<Zero>,
                  "umsync: a stream cannot be made from 0 or nullptr; the legacy "
                  "default stream is an explicit choice: umsync::legacy_default_stream()");
  }
  template <std::same_as<std::nullptr_t> Null>
  stream_view(Null)  // NOLINT: exists to reject stream_view{nullptr} with a message
  {
    static_assert(detail::dependent_false<Null>,
                  "umsync: a stream cannot be made from 0 or nullptr; the legacy "
                  "default stream is an explicit choice: umsync::legacy_default_stream()");
  }

  [[nodiscard]] constexpr cudaStream_t get() const noexcept { return handle_; }
  constexpr operator cudaStream_t() const noexcept { return handle_; }  // NOLINT: launch syntax needs it
  /// CCCL interop: converts to cuda::stream_ref (detail::foreign_stream_ref), which carries no tag.
  template <detail::foreign_stream_ref StreamRef>
  constexpr operator StreamRef() const noexcept  // NOLINT: as the cuda::stream_ref conversion was
  {
    return StreamRef(handle_);
  }

  /// Blocks the calling host thread until all work queued so far on the stream is done. A
  /// stream that is being captured throws capture_error first (its captured work has not run,
  /// and the call would invalidate the capture).
  void synchronize(std::source_location where = std::source_location::current()) const
  {
    detail::refuse_in_capture(handle_, "cudaStreamSynchronize", where);
    check(cudaStreamSynchronize(handle_), "cudaStreamSynchronize", where);
    detail::debug::note_host_waited_for_stream(handle_);
  }

  /// True when all work queued so far has finished; never blocks. A stream that is being
  /// captured throws capture_error first (the query would invalidate the capture). True orders
  /// what the host issues afterwards after that work, as synchronize() does.
  [[nodiscard]] bool ready(std::source_location where = std::source_location::current()) const
  {
    detail::refuse_in_capture(handle_, "cudaStreamQuery", where);
    cudaError_t const status = cudaStreamQuery(handle_);
    if (status == cudaErrorNotReady) {
      static_cast<void>(cudaGetLastError());
      return false;
    }
    check(status, "cudaStreamQuery", where);
    detail::debug::note_host_waited_for_stream(handle_);
    return true;
  }

  /// Work queued on this stream after the call waits for `e`'s last recorded work.
  /// This is the raw edge; umsync::stream_edge wraps it with typed handoff.
  template <event_handle Event>
  void wait(Event const& e, std::source_location where = std::source_location::current()) const
  {
    check(cudaStreamWaitEvent(handle_, e.get(), cudaEventWaitDefault), "cudaStreamWaitEvent", where);
    detail::debug::note_wait(handle_, e.get());
  }

  /// The stream's priority (lower numbers are more urgent).
  [[nodiscard]] int priority(std::source_location where = std::source_location::current()) const
  {
    int value = 0;
    check(cudaStreamGetPriority(handle_, &value), "cudaStreamGetPriority", where);
    return value;
  }

  friend constexpr bool operator==(stream_view, stream_view) noexcept = default;

 private:
  cudaStream_t handle_;
};

namespace detail {

/// Fails to compile (once instantiated with a dependent `Context`): a stream-ordered call that
/// checks memory against its stream's tag was given a raw cudaStream_t, which has none.
template <class Context>
constexpr void reject_raw_stream() noexcept
{
  static_assert(dependent_false<Context>,
                "umsync: umsync's stream-ordered calls take a umsync stream (stream<Tag>, stream_view<Tag> or "
                "capturing_stream<Tag>), whose tag memory is checked against; adopt a raw cudaStream_t with "
                "umsync::stream_view<Tag>{handle}");
}

}  // namespace detail

/// The legacy default stream (handle 0): it waits for, and is waited on by, every blocking
/// stream of the device. Named so that using it is a visible choice.
template <class Tag = untagged>
[[nodiscard]] inline stream_view<Tag> legacy_default_stream() noexcept
{
  return stream_view<Tag>{cudaStreamLegacy};
}

/// The calling host thread's per-thread default stream (does not synchronize with others).
template <class Tag = untagged>
[[nodiscard]] inline stream_view<Tag> per_thread_default_stream() noexcept
{
  return stream_view<Tag>{cudaStreamPerThread};
}

UMSYNC_NAMESPACE_END
