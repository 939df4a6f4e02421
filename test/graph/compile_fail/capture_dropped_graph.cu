// Rule: the graph end() returns is the capture's result; dropping it discards the captured work.
// expect-error: umsync: end() returns the captured graph; dropping it discards the captured work
#include <umsync/capture/capture_status.hpp>
#include <umsync/graph/capture_scope.hpp>
#include <umsync/graph/graph_exec.hpp>
#include <umsync/graph/graph_memory.hpp>

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
