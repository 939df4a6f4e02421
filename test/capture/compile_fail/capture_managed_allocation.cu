// Rule: a managed_buffer is not allocated on a capturing stream. Its stream-ordered
// constructor is reached by a constructor call, where a constraint would only say "no
// constructor matches"; the rule is named instead.
// expect-error: umsync: a managed_buffer allocated on a capturing stream: umsync captures device allocations only (graph memory nodes, stream_buffer); allocate managed memory before the capture begins
#include <umsync/graph/capture_scope.hpp>
#include <umsync/memory/managed_buffer.hpp>

struct compute {};

umsync::graph step(umsync::stream<compute> const& s)
{
#if defined(UMSYNC_CF_CONTROL)
  umsync::managed_buffer<float> staged(256, s);
  umsync::capture_scope scope(s);
#else
  umsync::capture_scope scope(s);
  umsync::managed_buffer<float> staged(256, scope.stream());
#endif
  return scope.end();
}
