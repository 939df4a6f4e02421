// umsync/timed_event.hpp: an owning, move-only CUDA event that records a timestamp.
//
// The difference of two is a std::chrono duration:
//
//   umsync::timed_event start, stop;
//   start.record(s); kernel<<<..., s.view()>>>(); stop.record(s);
//   stop.synchronize();
//   std::chrono::duration<float, std::milli> ms = stop - start;
//
// Apart from event.hpp because <chrono> costs nvcc more to compile than event.hpp itself, and
// ordering needs no clock.
#pragma once

#include <umsync/config.hpp>
#include <umsync/error.hpp>
#include <umsync/event.hpp>

#include <chrono>
#include <source_location>

UMSYNC_NAMESPACE_BEGIN

/// An event that also records a timestamp.
class timed_event : public detail::basic_event<true> {
 public:
  using detail::basic_event<true>::basic_event;
  using duration = std::chrono::duration<float, std::milli>;

  /// Time from `start` to `stop` (resolution about 0.5 us). Both must have completed:
  /// otherwise throws cuda_error (cudaErrorNotReady).
  [[nodiscard]] static duration elapsed(timed_event const& start, timed_event const& stop,
                                        std::source_location where = std::source_location::current())
  {
    float ms = 0.0F;
    check(cudaEventElapsedTime(&ms, start.get(), stop.get()), "cudaEventElapsedTime", where);
    return duration{ms};
  }

  friend duration operator-(timed_event const& stop, timed_event const& start) { return elapsed(start, stop); }
};

UMSYNC_NAMESPACE_END
