// umsync/dependency.hpp: explicit, typed edges between two streams.
//
//   umsync::stream_dependency edge(producer_stream, consumer_stream);
//   auto on_consumer = edge.transfer(std::move(buffer));  // event on producer, consumer waits
//   auto readable = edge.share(other_buffer);             // fan-out: a read-only view for consumer
//
// `transfer` is the only way a buffer bound to one stream tag becomes usable on another: it
// records an event on the source stream, makes the destination stream wait for it, and
// returns the buffer rebound to the destination (where it will also be freed). Dropping the
// result would free the buffer at once, so it is [[nodiscard]]; umsync's own builds turn
// that warning into an error (nvcc --diag-error 3000,3001) and so should yours.
#pragma once

#include <umsync/config.hpp>
#include <umsync/error.hpp>
#include <umsync/event.hpp>
#include <umsync/memory/async_pool_buffer.hpp>
#include <umsync/stream.hpp>
#include <umsync/stream_view.hpp>

#include <source_location>
#include <utility>

UMSYNC_NAMESPACE_BEGIN

template <class From, class To>
class stream_dependency {
 public:
  stream_dependency(stream_view<From> from, stream_view<To> to) : from_(from), to_(to) {}

  /// Everything queued on the source stream so far happens before anything queued on the
  /// destination stream after this call.
  void edge(std::source_location where = std::source_location::current())
  {
    event_.record(from_, where);
    to_.wait(event_, where);
  }

  /// Orders the streams (edge()) and rebinds `buffer` to the destination stream.
  template <class T>
  [[nodiscard("umsync: dropping a transfer's result frees the buffer; keep the returned buffer")]]
  async_pool_buffer<T, To> transfer(async_pool_buffer<T, From>&& buffer,
                                    std::source_location where = std::source_location::current())
  {
    edge(where);
    return async_pool_buffer<T, To>(std::move(buffer), to_);
  }

  /// Fan-out: orders the streams (edge()) and lends `buffer` to the destination stream for
  /// reading, as a read-only span bound to it; the buffer stays bound to (and is freed on) the
  /// source stream. Several destinations may read at once. Before the source writes or frees
  /// the buffer again, join back with an edge from each reader (fan-in):
  ///   stream_dependency(reader, owner).edge();
  /// UMSYNC_DEBUG builds report a missing join as an ordering_error.
  template <class T>
  [[nodiscard("umsync: a shared view is the only way to read the buffer on the destination stream")]]
  device_span<T const, To> share(async_pool_buffer<T, From> const& buffer,
                                 std::source_location where = std::source_location::current())
  {
    edge(where);
    return device_span<T const, To>::adopt(buffer.data(), buffer.size());
  }

  [[nodiscard]] stream_view<From> from() const noexcept { return from_; }
  [[nodiscard]] stream_view<To> to() const noexcept { return to_; }

 private:
  stream_view<From> from_;
  stream_view<To> to_;
  event event_;
};

template <class From, class To>
stream_dependency(stream<From> const&, stream<To> const&) -> stream_dependency<From, To>;
template <class From, class To>
stream_dependency(stream_view<From>, stream_view<To>) -> stream_dependency<From, To>;

UMSYNC_NAMESPACE_END
