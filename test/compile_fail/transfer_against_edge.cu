// Rule: an edge runs one way, from its first stream to its second. Transferring a buffer bound
// to the edge's destination (an edge built the other way round) names the rule.
// expect-error: umsync: a stream_edge hands over or lends a buffer bound to its source stream only; an edge runs one way, from its first stream to its second: build stream_edge(buffer_stream, other_stream)
#include <umsync/stream_edge.hpp>

struct producer {};
struct consumer {};

umsync::stream_buffer<float, consumer> handoff(umsync::stream<producer> const& ps, umsync::stream<consumer> const& cs,
                                               umsync::stream_buffer<float, producer>&& x)
{
#if defined(UMSYNC_CF_CONTROL)
  umsync::stream_edge edge(ps, cs);
  return edge.transfer(std::move(x));
#else
  umsync::stream_edge edge(cs, ps);
  auto back = edge.transfer(std::move(x));
  return umsync::stream_buffer<float, consumer>(0, cs);
#endif
}
