// umsync/capture/capturing_stream.hpp: a stream while it is being captured into a graph.
//
// What is queued on a capturing stream does not run: it becomes graph nodes. So the type
// offers only what can be captured: it is a stream_handle (umsync::launch, copy_async, event
// records and waits), converts to stream_view<Tag> for stream_buffer (whose cudaMallocAsync
// and cudaFreeAsync become graph memory nodes) and stream_edge (whose edges become graph
// edges). Its synchronize() and ready() do not compile (they say why), it has no prefetch or
// advice, and functions that need a non-capturing stream reject it at compile time
// (non_capturing_stream.hpp).
//
// Only a capture_scope makes one (scope.stream(), scope.fork(other)); it is a non-owning view,
// valid until the scope ends.
#pragma once

#include <umsync/capture/capture_unsafe.hpp>
#include <umsync/config.hpp>
#include <umsync/error.hpp>
#include <umsync/stream_view.hpp>

#include <source_location>

UMSYNC_NAMESPACE_BEGIN

template <class Tag>
class capture_scope;

template <class Tag = untagged>
class capturing_stream {
 public:
  using tag_type = Tag;

  [[nodiscard]] constexpr cudaStream_t get() const noexcept { return handle_; }

  /// For APIs that take a stream_view (stream_buffer, stream_edge). Note that a
  /// stream_view has synchronize(): the types stop guarding there, capture_status.hpp's
  /// run-time checks do not.
  constexpr operator stream_view<Tag>() const noexcept { return stream_view<Tag>{handle_}; }  // NOLINT

  /// Work captured on this stream after the call depends on `e`'s last record, which must
  /// have been recorded in the same capture (that is how streams fork and join).
  template <event_handle Event>
  void wait(Event const& e, std::source_location where = std::source_location::current()) const
  {
    stream_view<Tag>{handle_}.wait(e, where);
  }

  /// Not on a capturing stream: the members a stream_view has and this type refuses, each
  /// with its rule (templates, so that only a call fails to compile).
  template <class Never = void>
  void synchronize(std::source_location = std::source_location::current()) const
  {
    detail::reject_in_capture<capture_unsafe::host_sync, Never>();
  }
  template <class Never = void>
  bool ready(std::source_location = std::source_location::current()) const
  {
    detail::reject_in_capture<capture_unsafe::stream_query, Never>();
    return false;
  }

  friend constexpr bool operator==(capturing_stream, capturing_stream) noexcept = default;

 private:
  template <class>
  friend class capture_scope;

  constexpr explicit capturing_stream(cudaStream_t handle) noexcept : handle_(handle) {}

  cudaStream_t handle_;
};

UMSYNC_NAMESPACE_END
