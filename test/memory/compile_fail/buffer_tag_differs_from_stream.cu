// Rule: a stream buffer is bound to the stream it is allocated on, so its tag is that stream's.
// Allocating a stream_buffer<T, A> on a stream<B> names the rule instead of "no
// constructor matches".
// expect-error: umsync: a stream_buffer<T, Tag> is bound to the stream it is allocated on, and that stream has another tag; write stream_buffer<T, StreamTag>, or allocate on the Tag stream and cross with a stream_edge's transfer
#include <umsync/memory/stream_buffer.hpp>
#include <umsync/stream.hpp>

struct producer {};
struct consumer {};

void use(umsync::stream<producer> const& ps, umsync::stream<consumer> const& cs)
{
#if defined(UMSYNC_CF_CONTROL)
  umsync::stream_buffer<float, producer> x(64, ps);
  umsync::stream_buffer<float, producer> copy(x, ps);
#else
  umsync::stream_buffer<float, producer> x(64, cs);
#endif
  static_cast<void>(ps);
  static_cast<void>(cs);
}
