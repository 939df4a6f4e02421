// Rule: a fill's destination is writable, as a copy's is. Filling a const buffer (or a span of
// const) names the rule, and only the rule; so does memset_bytes.
// expect-error: umsync: the destination of a fill must be writable
#include <umsync/memory/fill.hpp>
#include <umsync/memory/stream_buffer.hpp>
#include <umsync/stream.hpp>

struct compute {};

void reset(umsync::stream<compute> const& s, umsync::stream_buffer<float, compute> const& weights,
           umsync::stream_buffer<float, compute>& grads)
{
#if defined(UMSYNC_CF_CONTROL)
  umsync::fill(s, grads, 0.0F);
  umsync::memset_bytes(s, grads, 0);
  static_cast<void>(weights);
#else
  umsync::fill(s, weights, 0.0F);
  umsync::memset_bytes(s, weights, 0);
  static_cast<void>(grads);
#endif
}
