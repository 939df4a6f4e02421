// Rule: no prefetch on a capturing stream. cudaMemPrefetchAsync cannot be captured, and the
// failed call would invalidate the whole capture; prefetch before the capture begins.
// expect-error: umsync: prefetch on a capturing stream: cudaMemPrefetchAsync cannot be captured and would invalidate the capture; prefetch before the capture begins or after capture_scope::end()
#include <umsync/graph/capture.hpp>

#include <cstddef>

struct compute {};

umsync::graph step(umsync::stream<compute> const& s, float const* managed, std::size_t bytes)
{
#if defined(UMSYNC_CF_CONTROL)
  umsync::prefetch_to_device(managed, bytes, 0, s);
  umsync::capture_scope scope(s);
#else
  umsync::capture_scope scope(s);
  umsync::prefetch_to_device(managed, bytes, 0, scope.stream());
#endif
  return scope.end();
}
