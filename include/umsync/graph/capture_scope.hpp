// umsync/graph/capture_scope.hpp: RAII stream capture that yields a graph.
//
//   umsync::stream<compute> s;
//   umsync::stream<copy> side;
//   umsync::graph g = [&] {
//     umsync::capture_scope scope(s);                        // cudaStreamBeginCapture (global mode)
//     auto cs = scope.stream();                              // capturing_stream<compute>
//     auto cside = scope.fork(side);                         // `side` joins the capture
//     {
//       umsync::stream_buffer<float, compute> tmp(n, cs); // a graph allocation node
//       umsync::launch(cs, cfg, kernel, tmp);
//       ...                                                   // tmp's free: a graph free node
//     }
//     return scope.end();                                    // joins forks, ends the capture
//   }();
//
// Buffers allocated on a capturing stream must be destroyed before end(), so that their free is
// part of the graph: the graph then replays without leaking (an allocation still live at the
// next launch makes cudaGraphLaunch fail). end() counts allocation and free nodes and throws
// usage_error when an allocation would escape the graph. A scope destroyed without end() ends the capture and
// discards the graph, without throwing. A global or per-thread scope must end on the thread
// that began it.
//
// With UMSYNC_NVTX a capture is an NVTX range, "umsync capture compute", from its begin to its
// end or discard (docs/nvtx.md).
#pragma once

#include <umsync/capture/capture_mode.hpp>
#include <umsync/capture/capturing_stream.hpp>
#include <umsync/config.hpp>
#include <umsync/detail/heap_array.hpp>
#include <umsync/detail/nvtx.hpp>
#include <umsync/error.hpp>
#include <umsync/event.hpp>
#include <umsync/graph/graph.hpp>
#include <umsync/stream.hpp>
#include <umsync/stream_view.hpp>

#include <cstddef>
#include <source_location>

UMSYNC_NAMESPACE_BEGIN

template <class Tag = untagged>
class capture_scope {
 public:
  /// Begins capturing `origin` in `mode`. The stream must not be capturing already, nor be the
  /// legacy default stream (both throw cuda_error).
  explicit capture_scope(stream_view<Tag> origin, capture_mode mode = capture_mode::global,
                         std::source_location where = std::source_location::current())
      : origin_(origin.get()), mode_(mode), edge_event_(event_options{}, where)
  {
    detail::nvtx_opening<detail::nvtx_words::capture, Tag> range;  // popped by finish()
    check(cudaStreamBeginCapture(origin_, static_cast<cudaStreamCaptureMode>(mode)), "cudaStreamBeginCapture", where);
    detail::capture_registry::begin(mode_);
    active_ = true;
    range.keep();
  }
  explicit capture_scope(umsync::stream<Tag> const& origin, capture_mode mode = capture_mode::global,
                         std::source_location where = std::source_location::current())
      : capture_scope(origin.view(), mode, where)
  {}
  explicit capture_scope(umsync::stream<Tag> const&& origin, capture_mode mode = capture_mode::global) = delete;

  // The capture belongs to this object (and, unless relaxed, to this thread): it stays put.
  capture_scope(capture_scope const&) = delete;
  capture_scope& operator=(capture_scope const&) = delete;
  capture_scope(capture_scope&&) = delete;
  capture_scope& operator=(capture_scope&&) = delete;

  /// Ends the capture and discards what was captured, if end() was not called.
  ~capture_scope() { discard(); }

  /// The origin stream, typed so that only capturable operations accept it.
  [[nodiscard]] capturing_stream<Tag> stream() const noexcept { return capturing_stream<Tag>(origin_); }

  /// Makes `other` part of this capture: its next captured work depends on everything
  /// captured on the origin so far (an event recorded on the origin, waited on by `other`).
  /// end() joins it back. `other` must not be capturing for another capture.
  template <class OtherTag>
  [[nodiscard]] capturing_stream<OtherTag> fork(stream_view<OtherTag> other,
                                                std::source_location where = std::source_location::current())
  {
    require_active("fork");
    cudaStream_t const handle = other.get();
    if (handle == origin_) {
      throw usage_error("capture_scope::fork of the capture's own origin stream");
    }
    bool joined_before = false;
    for (cudaStream_t const fork : forks_) {
      joined_before = joined_before || fork == handle;
    }
    if (!joined_before) {
      cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
      check(cudaStreamIsCapturing(handle, &status), "cudaStreamIsCapturing", where);
      if (status != cudaStreamCaptureStatusNone) {
        throw usage_error("capture_scope::fork of a stream that is already capturing for another capture");
      }
    }
    edge_event_.record(stream_view<Tag>{origin_}, where);
    check(cudaStreamWaitEvent(handle, edge_event_.get(), cudaEventWaitDefault), "cudaStreamWaitEvent", where);
    if (!joined_before) {
      forks_.push_back(handle);
    }
    return capturing_stream<OtherTag>(handle);
  }
  template <class OtherTag>
  [[nodiscard]] capturing_stream<OtherTag> fork(umsync::stream<OtherTag> const& other,
                                                std::source_location where = std::source_location::current())
  {
    return fork(other.view(), where);
  }
  template <class OtherTag>
  capturing_stream<OtherTag> fork(umsync::stream<OtherTag> const&& other) = delete;

  /// Joins every forked stream back into the origin and ends the capture. Throws cuda_error
  /// when the capture was invalidated (a capture-unsafe call was made during it); the scope
  /// is ended either way, and a second end() throws usage_error.
  // clang-format off
  [[nodiscard("umsync: end() returns the captured graph; dropping it discards the captured work")]]
  graph end(std::source_location where = std::source_location::current())
  // clang-format on
  {
    require_active("end");
    try {
      join_forks(where);
    } catch (...) {
      discard();
      throw;
    }
    cudaGraph_t captured = nullptr;
    cudaError_t const status = cudaStreamEndCapture(origin_, &captured);
    finish();
    if (status != cudaSuccess) {
      if (captured != nullptr) {
        static_cast<void>(cudaGraphDestroy(captured));
      }
      check(status, "cudaStreamEndCapture", where);
    }
    if (captured == nullptr) {
      check(cudaErrorStreamCaptureInvalidated, "cudaStreamEndCapture (the capture was invalidated)", where);
    }
    graph result = graph::adopt(captured);
    std::size_t allocations = 0;  // one pass over the nodes: this runs at every capture
    std::size_t frees = 0;
    for (cudaGraphNode_t node : result.nodes(where)) {
      cudaGraphNodeType const type = graph::type_of(node, where);
      allocations += type == cudaGraphNodeTypeMemAlloc ? 1 : 0;
      frees += type == cudaGraphNodeTypeMemFree ? 1 : 0;
    }
    if (allocations > frees) {
      throw usage_error("capture_scope::end(): ", allocations - frees,
                        " allocation(s) made during the capture are still live at end(); destroy the "
                        "stream_buffers allocated on a capturing stream before end() (an inner block), so "
                        "their frees are captured too: otherwise they would be freed before the graph ever runs, "
                        "and a second launch would fail");
    }
    return result;
  }

  /// False once end() was called or the capture was discarded.
  [[nodiscard]] bool active() const noexcept { return active_; }
  [[nodiscard]] capture_mode mode() const noexcept { return mode_; }

 private:
  void require_active(char const* what) const
  {
    if (!active_) [[unlikely]] {
      throw usage_error("capture_scope::", what, " after the capture ended");
    }
  }

  void join_forks(std::source_location const& where)
  {
    stream_view<Tag> const origin{origin_};
    for (cudaStream_t fork : forks_) {
      edge_event_.record(stream_view<untagged>{fork}, where);
      origin.wait(edge_event_, where);
    }
  }

  void finish() noexcept
  {
    active_ = false;
    forks_.clear();
    detail::capture_registry::end(mode_);
    detail::nvtx_pop();  // the capture's range, pushed by the constructor
  }

  /// Ends an unfinished capture and drops its graph; reports only what an earlier error does
  /// not already explain.
  void discard() noexcept
  {
    if (!active_) {
      return;
    }
    // Join what can be joined, so the end is not refused for unjoined work; errors here mean
    // the capture is already invalidated, which ending it clears.
    for (cudaStream_t fork : forks_) {
      if (cudaEventRecord(edge_event_.get(), fork) != cudaSuccess ||
          cudaStreamWaitEvent(origin_, edge_event_.get(), cudaEventWaitDefault) != cudaSuccess) {
        static_cast<void>(cudaGetLastError());
      }
    }
    cudaGraph_t captured = nullptr;
    cudaError_t const status = cudaStreamEndCapture(origin_, &captured);
    finish();
    if (captured != nullptr) {
      detail::report_in_destructor(cudaGraphDestroy(captured), "cudaGraphDestroy (discarded capture)");
    }
    if (status == cudaErrorStreamCaptureInvalidated || status == cudaErrorStreamCaptureUnjoined) {
      static_cast<void>(cudaGetLastError());
    } else {
      detail::report_in_destructor(status, "cudaStreamEndCapture (discarded capture)");
    }
  }

  cudaStream_t origin_;
  capture_mode mode_;
  event edge_event_;
  detail::heap_array<cudaStream_t> forks_;
  bool active_ = false;
};

template <class Tag, class... Rest>
capture_scope(stream<Tag> const&, Rest&&...) -> capture_scope<Tag>;
template <class Tag, class... Rest>
capture_scope(stream_view<Tag>, Rest&&...) -> capture_scope<Tag>;

UMSYNC_NAMESPACE_END
