// Rule: no cudaStreamAttachMemAsync on a capturing stream, reached through managed_buffer's
// attach() member.
// expect-error: umsync: cudaStreamAttachMemAsync on a capturing stream: it cannot be captured and would invalidate the capture; attach before the capture begins
#include <umsync/graph/capture_scope.hpp>
#include <umsync/memory/managed_buffer.hpp>

struct compute {};

umsync::graph step(umsync::stream<compute> const& s, umsync::managed_buffer<float>& buffer)
{
#if defined(UMSYNC_CF_CONTROL)
  buffer.attach(s, umsync::stream_attach::single);
  umsync::capture_scope scope(s);
#else
  umsync::capture_scope scope(s);
  buffer.attach(scope.stream(), umsync::stream_attach::single);
#endif
  return scope.end();
}
