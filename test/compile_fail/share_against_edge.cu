// Rule: an edge runs one way; share() lends a buffer of the edge's source stream only.
// expect-error: umsync: a stream_edge hands over or lends a buffer bound to its source stream only; an edge runs one way, from its first stream to its second: build stream_edge(buffer_stream, other_stream)
#include <umsync/stream_edge.hpp>

struct producer {};
struct consumer {};

umsync::device_span<float const, consumer> lend(umsync::stream<producer> const& ps, umsync::stream<consumer> const& cs,
                                                umsync::stream_buffer<float, producer> const& x)
{
#if defined(UMSYNC_CF_CONTROL)
  umsync::stream_edge edge(ps, cs);
  return edge.share(x);
#else
  umsync::stream_edge edge(cs, ps);
  auto view = edge.share(x);
  return {};
#endif
}
