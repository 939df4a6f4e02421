// Rule: no memory advice for a capturing stream. cudaMemAdvise is not stream-ordered, cannot be
// captured, and the failed call would invalidate the capture; advise before the capture begins.
// expect-error: umsync: memory advice on a capturing stream: cudaMemAdvise cannot be captured and would invalidate the capture; advise before the capture begins or after capture_scope::end()
#include <umsync/graph/capture_scope.hpp>
#include <umsync/memory/managed_buffer.hpp>

struct compute {};

umsync::graph step(umsync::stream<compute> const& s, umsync::managed_span<float const> managed)
{
  umsync::advice::preferred_location const on_device{umsync::managed_location::device(0)};
#if defined(UMSYNC_CF_CONTROL)
  umsync::advise_for(s, managed, on_device);
  umsync::capture_scope scope(s);
#else
  umsync::capture_scope scope(s);
  umsync::advise_for(scope.stream(), managed, on_device);
#endif
  return scope.end();
}
