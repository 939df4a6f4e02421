// Rule: a pool buffer is bound to the stream it is allocated on, so its tag is that stream's.
// Allocating an async_pool_buffer<T, A> on a stream<B> names the rule instead of "no
// constructor matches".
// expect-error: umsync: an async_pool_buffer<T, Tag> is bound to the stream it is allocated on, and that stream has another tag; write async_pool_buffer<T, StreamTag>, or allocate on the Tag stream and cross with a stream_edge's transfer
#include <umsync/memory/async_pool_buffer.hpp>
#include <umsync/stream.hpp>

struct producer {};
struct consumer {};

void use(umsync::stream<producer> const& ps, umsync::stream<consumer> const& cs)
{
#if defined(UMSYNC_CF_CONTROL)
  umsync::async_pool_buffer<float, producer> x(64, ps);
  umsync::async_pool_buffer<float, producer> copy(x, ps);
#else
  umsync::async_pool_buffer<float, producer> x(64, cs);
#endif
  static_cast<void>(ps);
  static_cast<void>(cs);
}
