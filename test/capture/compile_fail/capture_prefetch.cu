// Rule: no prefetch on a capturing stream. cudaMemPrefetchAsync cannot be captured, and the
// failed call would invalidate the whole capture; prefetch before the capture begins.
// expect-error: umsync: prefetch on a capturing stream: cudaMemPrefetchAsync cannot be captured and would invalidate the capture; prefetch before the capture begins or after capture_scope::end()
#include <umsync/graph/capture_scope.hpp>
#include <umsync/memory/managed_buffer.hpp>

struct compute {};

umsync::graph step(umsync::stream<compute> const& s, umsync::managed_span<float const> managed)
{
#if defined(UMSYNC_CF_CONTROL)
  umsync::prefetch(managed, umsync::managed_location::device(0), s);
  umsync::capture_scope scope(s);
#else
  umsync::capture_scope scope(s);
  umsync::prefetch(managed, umsync::managed_location::device(0), scope.stream());
#endif
  return scope.end();
}
