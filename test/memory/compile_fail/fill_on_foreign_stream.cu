// Rule 1, for fills: memory bound to stream tag A cannot be filled on stream tag B (fill and
// memset_bytes alike).
// expect-error: umsync: memory bound to one stream is used on another stream; cross with umsync::stream_edge::transfer (an event edge) first
#include <umsync/memory/fill.hpp>
#include <umsync/memory/stream_buffer.hpp>
#include <umsync/stream.hpp>

struct producer {};
struct consumer {};

void use(umsync::stream<producer> const& ps, umsync::stream<consumer> const& cs)
{
  umsync::stream_buffer<float, producer> data(32, ps);
#if defined(UMSYNC_CF_CONTROL)
  umsync::fill(ps, data.span().first(16), 1.0F);
  umsync::memset_bytes(ps, data, 0);
  static_cast<void>(cs);
#else
  umsync::fill(cs, data.span().first(16), 1.0F);
  umsync::memset_bytes(cs, data, 0);
#endif
}
