// umsync/stream_edge.hpp: explicit, typed edges between two streams.
//
//   umsync::stream_edge edge(producer_stream, consumer_stream);     // an immediate edge
//   auto on_consumer = edge.transfer(std::move(buffer));  // event on producer, consumer waits
//   auto readable = edge.share(other_buffer);             // fan-out: a read-only view for consumer
//
//   umsync::stream_edge slot_free(compute_stream, loader_stream, umsync::deferred);
//   umsync::launch(compute_stream, config, consume, slot);   // batch i reads slot i % R
//   slot_free.record();                                      // slot i % R is free after this
//   ...                                                      // batches i+1 .. i+R-1
//   slot_free.wait();                                        // loader may refill slot i % R
//
// One type, stream_edge<From, To, Timing>, does both, and it has one name. Its tags are deduced
// from the two streams by the class's own deduction guides (no alias template is involved, so
// clang before 19, which lacks C++20's deduction for alias templates, builds it as nvcc's host
// compiler); the `umsync::deferred` argument picks the deferred timing. Where the type must be
// written (a member, a parameter): stream_edge<From, To> is immediate,
// stream_edge<From, To, edge_timing::deferred> deferred.
// Immediate: transfer and share record an event on the source and make the destination wait for
// it, in one call: right for a handoff. Deferred: record() and wait() happen apart, and transfer
// and share wait for the last record(): a ring of R buffers needs this, since the consumer's
// "done with slot i" is known right after its kernel for batch i, but the producer must wait for
// it only when it refills that slot, R batches later. Waiting at record time would serialize the
// ring; recording at wait time would order the producer after batches it does not conflict with.
//
// `transfer` is the only way a buffer bound to one stream tag becomes usable on another: it
// returns the buffer rebound to the destination (where it will also be freed). Dropping the
// result would free the buffer at once, so it is [[nodiscard]]; umsync's own builds turn that
// warning into an error (nvcc --diag-error 3000,3001) and so should yours.
//
// With UMSYNC_NVTX each call is an NVTX range named from the tags: "umsync transfer loader ->
// compute", and likewise share, edge, record and wait (docs/nvtx.md).
#pragma once

#include <umsync/capture/capturing_stream.hpp>
#include <umsync/config.hpp>
#include <umsync/detail/nvtx.hpp>
#include <umsync/error.hpp>
#include <umsync/event.hpp>
#include <umsync/memory/stream_buffer.hpp>
#include <umsync/stream.hpp>
#include <umsync/stream_view.hpp>

#include <cstdlib>
#include <source_location>
#include <type_traits>
#include <utility>

UMSYNC_NAMESPACE_BEGIN

namespace detail {

template <class B>
inline constexpr bool is_stream_buffer = false;
template <class T, class Tag>
inline constexpr bool is_stream_buffer<stream_buffer<T, Tag>> = true;

template <class B>
struct buffer_traits {
  using tag = void;
  template <class To>
  using rebound = B;
  template <class To>
  using shared = B;
};
template <class T, class Tag>
struct buffer_traits<stream_buffer<T, Tag>> {
  using tag = Tag;
  template <class To>
  using rebound = stream_buffer<T, To>;
  template <class To>
  using shared = device_span<T const, To>;
};

template <class B>
using bound_tag_t = typename buffer_traits<B>::tag;
/// What transfer returns for `Buffer` (a rejected argument keeps its own type, so that only the
/// rule's message is reported).
template <class Buffer, class To>
using rebound_buffer_t = typename buffer_traits<std::remove_cvref_t<Buffer>>::template rebound<To>;
template <class Buffer, class To>
using shared_view_t = typename buffer_traits<std::remove_cvref_t<Buffer>>::template shared<To>;

}  // namespace detail

/// When an edge's transfer and share order the streams.
enum class edge_timing {
  immediate,  ///< at the call: record on the source, then the destination waits
  deferred,   ///< the destination waits for the last record(), made earlier
};

/// The type of an argument that names an edge's timing; umsync::deferred is the one to pass.
template <edge_timing Timing>
struct edge_timing_tag {
  explicit edge_timing_tag() = default;
};
/// `umsync::stream_edge edge(from, to, umsync::deferred);`: a deferred edge.
inline constexpr edge_timing_tag<edge_timing::deferred> deferred{};

template <class From, class To, edge_timing Timing = edge_timing::immediate>
class stream_edge {
 public:
  stream_edge(stream_view<From> from, stream_view<To> to, std::source_location where = std::source_location::current())
      : from_(from), to_(to), event_(event_options{}, where)
  {}

  /// The same, with the timing named by an argument (umsync::deferred), so that it is deduced.
  stream_edge(stream_view<From> from, stream_view<To> to, edge_timing_tag<Timing>,
              std::source_location where = std::source_location::current())
      : stream_edge(from, to, where)
  {}

  /// Captures the work queued on the source stream so far; a later wait() orders the
  /// destination after it. Recording again replaces what a later wait() waits for.
  void record(std::source_location where = std::source_location::current())
  {
    [[maybe_unused]] detail::nvtx_range<detail::nvtx_words::record, From, To> const range;
    record_now(where);
  }

  /// Work queued on the destination after this call runs after the last record(). Waiting on
  /// an edge that was never recorded would order nothing (CUDA treats it as complete), so it
  /// throws usage_error instead.
  void wait(std::source_location where = std::source_location::current()) const
  {
    [[maybe_unused]] detail::nvtx_range<detail::nvtx_words::wait, From, To> const range;
    wait_now(where);
  }

  /// Everything queued on the source stream so far happens before anything queued on the
  /// destination stream after this call: record(), then wait().
  void edge(std::source_location where = std::source_location::current())
  {
    [[maybe_unused]] detail::nvtx_range<detail::nvtx_words::edge, From, To> const range;
    record_now(where);
    wait_now(where);
  }

  /// Orders the streams (immediate: edge(); deferred: wait()) and rebinds `buffer`, an
  /// stream_buffer bound to the source stream and passed with std::move, to the
  /// destination stream.
  template <class Buffer>
  // clang-format off
  [[nodiscard("umsync: dropping a transfer's result frees the buffer; keep the returned buffer")]]
  detail::rebound_buffer_t<Buffer, To> transfer(Buffer&& buffer,
                                                std::source_location where = std::source_location::current())
  // clang-format on
  {
    static_assert(!std::is_lvalue_reference_v<Buffer> && !std::is_const_v<std::remove_reference_t<Buffer>>,
                  "umsync: transfer takes the buffer by std::move(buffer): the source stream's name for it must "
                  "not be used after the handoff");
    if constexpr (handoff_source<Buffer>()) {
      [[maybe_unused]] detail::nvtx_range<detail::nvtx_words::transfer, From, To> const range;
      order_for_handoff(where);
      return detail::rebound_buffer_t<Buffer, To>(detail::rebind_key{}, std::move(buffer), to_);
    } else {
      std::abort();  // unreachable: the static_assert above has failed
    }
  }

  /// Fan-out: orders the streams as transfer() does and lends `buffer`, a stream_buffer
  /// bound to the source stream, to the destination stream for reading, as a read-only span
  /// bound to it; the buffer stays bound to (and is freed on) the source stream. Several
  /// destinations may read at once. Before the source writes or frees the buffer again, join
  /// back with an edge from each reader (fan-in):
  ///   umsync::stream_edge(reader, owner).edge();
  /// UMSYNC_DEBUG builds report a missing join as an ordering_error.
  template <class Buffer>
  // clang-format off
  [[nodiscard("umsync: a shared view is the only way to read the buffer on the destination stream")]]
  detail::shared_view_t<Buffer, To> share(Buffer&& buffer,
                                          std::source_location where = std::source_location::current())
  // clang-format on
  {
    static_assert(std::is_lvalue_reference_v<Buffer>,
                  "umsync: share of a temporary buffer: it is freed at the end of the statement while the "
                  "destination stream still reads it; keep the buffer in a variable");
    if constexpr (handoff_source<Buffer>()) {
      [[maybe_unused]] detail::nvtx_range<detail::nvtx_words::share, From, To> const range;
      order_for_handoff(where);
      return detail::shared_view_t<Buffer, To>::adopt(buffer.data(), buffer.size());
    } else {
      std::abort();  // unreachable: the static_assert above has failed
    }
  }

  [[nodiscard]] bool recorded() const noexcept { return recorded_; }
  [[nodiscard]] stream_view<From> from() const noexcept { return from_; }
  [[nodiscard]] stream_view<To> to() const noexcept { return to_; }

 private:
  /// The rules transfer and share both state of their argument; true when they hold.
  template <class Buffer>
  static constexpr bool handoff_source() noexcept
  {
    using source = std::remove_cvref_t<Buffer>;
    static_assert(detail::is_stream_buffer<source>,
                  "umsync: a stream_edge hands over (transfer) or lends (share) a stream_buffer; other memory "
                  "is not bound to a stream: order it with edge()");
    static_assert(!detail::is_stream_buffer<source> || std::is_same_v<detail::bound_tag_t<source>, From>,
                  "umsync: a stream_edge hands over or lends a buffer bound to its source stream only; an edge runs "
                  "one way, from its first stream to its second: build stream_edge(buffer_stream, "
                  "other_stream)");
    return detail::is_stream_buffer<source> && std::is_same_v<detail::bound_tag_t<source>, From>;
  }

  // record() and wait() without their ranges, for the calls that are a range of their own.
  void record_now(std::source_location const& where)
  {
    event_.record(from_, where);
    recorded_ = true;
  }

  void wait_now(std::source_location const& where) const
  {
    if (!recorded_) {
      throw usage_error("a stream_edge waited on before any record(): the destination would be ordered after nothing");
    }
    to_.wait(event_, where);
  }

  void order_for_handoff(std::source_location const& where)
  {
    if constexpr (Timing == edge_timing::immediate) {
      record_now(where);
    }
    wait_now(where);
  }

  stream_view<From> from_;
  stream_view<To> to_;
  event event_;
  bool recorded_ = false;
};

// Tags are deduced from streams, views and capturing streams alike: views by the constructors,
// the others by these guides. Each comes with and without the timing argument; without it, the
// edge is immediate. (The defaulted Timing lets the deprecated aliases below deduce too, on
// compilers that have alias-template deduction.)
template <class From, class To, edge_timing Timing = edge_timing::immediate>
stream_edge(stream<From> const&, stream<To> const&) -> stream_edge<From, To, Timing>;
template <class From, class To, edge_timing Timing = edge_timing::immediate>
stream_edge(capturing_stream<From> const&, capturing_stream<To> const&) -> stream_edge<From, To, Timing>;
template <class From, class To, edge_timing Timing = edge_timing::immediate>
stream_edge(stream<From> const&, stream_view<To>) -> stream_edge<From, To, Timing>;
template <class From, class To, edge_timing Timing = edge_timing::immediate>
stream_edge(stream_view<From>, stream<To> const&) -> stream_edge<From, To, Timing>;
template <class From, class To, edge_timing Timing>
stream_edge(stream<From> const&, stream<To> const&, edge_timing_tag<Timing>) -> stream_edge<From, To, Timing>;
template <class From, class To, edge_timing Timing>
stream_edge(capturing_stream<From> const&, capturing_stream<To> const&, edge_timing_tag<Timing>)
    -> stream_edge<From, To, Timing>;
template <class From, class To, edge_timing Timing>
stream_edge(stream<From> const&, stream_view<To>, edge_timing_tag<Timing>) -> stream_edge<From, To, Timing>;
template <class From, class To, edge_timing Timing>
stream_edge(stream_view<From>, stream<To> const&, edge_timing_tag<Timing>) -> stream_edge<From, To, Timing>;

/// Deprecated since 0.2.0, removed in 0.3.0: the names the edge had before stream_edge was its
/// only one. `umsync::stream_dependency edge(a, b)` needs alias-template deduction, which clang
/// before 19 lacks.
template <class From, class To>
using stream_dependency
    [[deprecated("umsync: stream_dependency is deprecated (removed in 0.3.0): write "
                 "umsync::stream_edge edge(from, to)")]] = stream_edge<From, To, edge_timing::immediate>;
template <class From, class To>
using deferred_edge [[deprecated("umsync: deferred_edge is deprecated (removed in 0.3.0): write "
                                 "umsync::stream_edge edge(from, to, umsync::deferred)")]] =
    stream_edge<From, To, edge_timing::deferred>;

UMSYNC_NAMESPACE_END
