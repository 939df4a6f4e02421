// Rule: no host synchronization of a capturing stream. capturing_stream has synchronize() only
// to say so (before: "has no member synchronize").
// expect-error: umsync: host synchronization on a capturing stream: captured work does not run until the graph is launched, and cudaStreamSynchronize would invalidate the capture; launch the graph_exec, then synchronize
#include <umsync/graph/capture_scope.hpp>

struct compute {};

umsync::graph step(umsync::stream<compute> const& s)
{
  umsync::capture_scope scope(s);
#if !defined(UMSYNC_CF_CONTROL)
  scope.stream().synchronize();
#endif
  return scope.end();
}
