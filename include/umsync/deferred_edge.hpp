// umsync/deferred_edge.hpp: an edge recorded on the source stream now and waited on by the
// destination later.
//
//   umsync::deferred_edge<compute, loader> slot_free(compute_stream, loader_stream);
//   umsync::launch(compute_stream, config, consume, slot);   // batch i reads slot i % R
//   slot_free.record();                                      // slot i % R is free after this
//   ...                                                      // batches i+1 .. i+R-1
//   slot_free.wait();                                        // loader may refill slot i % R
//
// stream_dependency records and waits in one call, which is right for a handoff. A ring of R
// buffers needs the two apart: the consumer's "done with slot i" is known right after its
// kernel for batch i, but the producer must wait for it only when it refills that slot, R
// batches later. Waiting at record time would serialize the ring; recording at wait time would
// order the producer after batches it does not conflict with.
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
class deferred_edge {
 public:
  deferred_edge(stream_view<From> from, stream_view<To> to, std::source_location where = std::source_location::current())
      : from_(from), to_(to), event_(event_options{}, where)
  {
  }

  /// Captures the work queued on the source stream so far; a later wait() orders the
  /// destination after it. Recording again replaces what a later wait() waits for.
  void record(std::source_location where = std::source_location::current())
  {
    event_.record(from_, where);
    recorded_ = true;
  }

  /// Work queued on the destination after this call runs after the last record(). Waiting on
  /// an edge that was never recorded would order nothing (CUDA treats it as complete), so it
  /// throws usage_error instead.
  void wait(std::source_location where = std::source_location::current()) const
  {
    if (!recorded_) {
      throw usage_error("umsync: deferred_edge::wait() before any record(): the destination would be ordered after "
                        "nothing");
    }
    to_.wait(event_, where);
  }

  /// wait(), then rebinds `buffer` to the destination stream (where it will be freed).
  template <class T>
  [[nodiscard("umsync: dropping a transfer's result frees the buffer; keep the returned buffer")]]
  async_pool_buffer<T, To> transfer(async_pool_buffer<T, From>&& buffer,
                                    std::source_location where = std::source_location::current())
  {
    wait(where);
    return async_pool_buffer<T, To>(std::move(buffer), to_);
  }

  [[nodiscard]] bool recorded() const noexcept { return recorded_; }
  [[nodiscard]] stream_view<From> from() const noexcept { return from_; }
  [[nodiscard]] stream_view<To> to() const noexcept { return to_; }

 private:
  stream_view<From> from_;
  stream_view<To> to_;
  event event_;
  bool recorded_ = false;
};

template <class From, class To>
deferred_edge(stream<From> const&, stream<To> const&) -> deferred_edge<From, To>;
template <class From, class To>
deferred_edge(stream_view<From>, stream_view<To>) -> deferred_edge<From, To>;

UMSYNC_NAMESPACE_END
