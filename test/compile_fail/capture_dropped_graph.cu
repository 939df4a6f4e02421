// Rule: the graph end() returns is the capture's result; dropping it discards the captured work.
// expect-error: umsync: end() returns the captured graph; dropping it discards the captured work
#include <umsync/graph/capture.hpp>

struct compute {};

void step(umsync::stream<compute> const& s)
{
  umsync::capture_scope scope(s);
#if defined(UMSYNC_CF_CONTROL)
  umsync::graph kept = scope.end();
  static_cast<void>(kept);
#else
  scope.end();
#endif
}
