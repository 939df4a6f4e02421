// Rule: no prefetch on a capturing stream, through a step_buffer's to_device() as well (both
// policies refuse it alike, so switching policy does not change what a capture may hold).
// expect-error: umsync: prefetch on a capturing stream: cudaMemPrefetchAsync cannot be captured and would invalidate the capture; prefetch before the capture begins or after capture_scope::end()
#include <umsync/graph/capture_scope.hpp>
#include <umsync/memory/step_buffer.hpp>

struct compute {};

umsync::graph step(umsync::stream<compute> const& s, umsync::step_buffer<float, umsync::managed>& buffer)
{
#if defined(UMSYNC_CF_CONTROL)
  buffer.to_device(s);
  umsync::capture_scope scope(s);
#else
  umsync::capture_scope scope(s);
  buffer.to_device(scope.stream());
#endif
  return scope.end();
}
