// Rule: a library call checks its memory against its stream's tag, as a launch does. A buffer
// bound to stream tag A given to a library call (here a cudaMemsetAsync) on stream tag B names
// the rule; the way across is stream_edge::transfer.
// expect-error: umsync: memory bound to one stream is used on another stream; cross with umsync::stream_edge::transfer (an event edge) first
#include <umsync/library_call.hpp>
#include <umsync/stream_edge.hpp>

#include <cstddef>

struct producer {};
struct consumer {};

cudaError_t clear(umsync::stream<producer> const& ps, umsync::stream<consumer> const& cs)
{
  umsync::stream_buffer<float, producer> data(32, ps);
  auto const memset = [](cudaStream_t s, float* p, std::size_t bytes) { return cudaMemsetAsync(p, 0, bytes, s); };
#if defined(UMSYNC_CF_CONTROL)
  umsync::stream_edge edge(ps, cs);
  auto on_consumer = edge.transfer(std::move(data));
  return umsync::library_call(cs, memset, on_consumer, on_consumer.size_bytes());
#else
  return umsync::library_call(cs, memset, data, data.size_bytes());
#endif
}
