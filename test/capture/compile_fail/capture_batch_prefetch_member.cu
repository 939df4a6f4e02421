// Rule: no prefetch on a capturing stream, also when it is reached through a member: a
// managed_batch's prefetch() named with the capture's stream says why, at the call.
// expect-error: umsync: prefetch on a capturing stream: cudaMemPrefetchAsync cannot be captured and would invalidate the capture; prefetch before the capture begins or after capture_scope::end()
#include <umsync/graph/capture_scope.hpp>
#include <umsync/memory/managed_batch.hpp>

struct compute {};

umsync::graph step(umsync::stream<compute> const& s, umsync::managed_batch const& batch)
{
#if defined(UMSYNC_CF_CONTROL)
  batch.prefetch(s);
  umsync::capture_scope scope(s);
#else
  umsync::capture_scope scope(s);
  batch.prefetch(scope.stream());
#endif
  return scope.end();
}
