// Rule 1, for copies: memory bound to stream tag A cannot be copied on stream tag B.
// expect-error: umsync: memory bound to one stream is used on another stream; cross with umsync::stream_edge::transfer (an event edge) first
#include <umsync/memory/copy.hpp>
#include <umsync/memory/pinned_buffer.hpp>
#include <umsync/memory/stream_buffer.hpp>
#include <umsync/stream.hpp>

struct producer {};
struct consumer {};

void use(umsync::stream<producer> const& ps, umsync::stream<consumer> const& cs)
{
  umsync::stream_buffer<float, producer> data(32, ps);
  umsync::pinned_buffer<float> host(32);
#if defined(UMSYNC_CF_CONTROL)
  umsync::copy_async(host, data, ps);
#else
  umsync::copy_async(host, data, cs);
#endif
}
