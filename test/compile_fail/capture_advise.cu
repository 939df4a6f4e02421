// Rule: no memory advice for a capturing stream. cudaMemAdvise is not stream-ordered, cannot be
// captured, and the failed call would invalidate the capture; advise before the capture begins.
// expect-error: umsync: memory advice on a capturing stream: cudaMemAdvise cannot be captured and would invalidate the capture; advise before the capture begins or after capture_scope::end()
#include <umsync/graph/capture.hpp>

#include <cstddef>

struct compute {};

umsync::graph step(umsync::stream<compute> const& s, float const* managed, std::size_t bytes)
{
  cudaMemLocation const device{cudaMemLocationTypeDevice, 0};
#if defined(UMSYNC_CF_CONTROL)
  umsync::advise_for(s, managed, bytes, cudaMemAdviseSetPreferredLocation, device);
  umsync::capture_scope scope(s);
#else
  umsync::capture_scope scope(s);
  umsync::advise_for(scope.stream(), managed, bytes, cudaMemAdviseSetPreferredLocation, device);
#endif
  return scope.end();
}
