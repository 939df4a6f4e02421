// Rule: no stream query on a capturing stream: its work has not run, and cudaStreamQuery would
// invalidate the capture.
// expect-error: umsync: ready() on a capturing stream: captured work does not run until the graph is launched, and cudaStreamQuery would invalidate the capture; ask the stream the graph_exec is launched on
#include <umsync/graph/capture_scope.hpp>

struct compute {};

bool step(umsync::stream<compute> const& s)
{
  umsync::capture_scope scope(s);
#if defined(UMSYNC_CF_CONTROL)
  bool const done = false;
#else
  bool const done = scope.stream().ready();
#endif
  static_cast<void>(scope.end());
  return done || s.ready();
}
