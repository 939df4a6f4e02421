// Rule: a copy's destination is writable. Copying into a const buffer names the rule, and only
// the rule (before, a second error followed from inside copy.hpp).
// expect-error: umsync: the destination of a copy must be writable
#include <umsync/memory/copy.hpp>
#include <umsync/memory/stream_buffer.hpp>
#include <umsync/stream.hpp>

struct compute {};

void refresh(umsync::stream<compute> const& s, umsync::stream_buffer<float, compute> const& cached,
             umsync::stream_buffer<float, compute>& fresh)
{
#if defined(UMSYNC_CF_CONTROL)
  umsync::copy_async(fresh, cached, s);
#else
  umsync::copy_async(cached, fresh, s);
#endif
}
