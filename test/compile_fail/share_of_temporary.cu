// Rule: a shared view must not outlive its buffer. Sharing a temporary would free the buffer at
// the end of the statement while the destination stream still reads it.
// expect-error: umsync: share of a temporary buffer: it is freed at the end of the statement while the destination stream still reads it; keep the buffer in a variable
#include <umsync/stream_edge.hpp>

struct producer {};
struct consumer {};

umsync::device_span<float const, consumer> lend(umsync::stream<producer> const& ps, umsync::stream<consumer> const& cs)
{
  umsync::stream_edge edge(ps, cs);
#if defined(UMSYNC_CF_CONTROL)
  static umsync::stream_buffer<float, producer> kept(64, ps);
  return edge.share(kept);
#else
  return edge.share(umsync::stream_buffer<float, producer>(64, ps));
#endif
}
