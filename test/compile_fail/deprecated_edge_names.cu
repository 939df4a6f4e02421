// Rule: the edge has one name, stream_edge; its old names stream_dependency and deferred_edge
// are deprecated aliases (removed in 0.3.0) whose warning says what to write. Made an error here
// with a pragma. The host compiler warns: g++ (where the alias's arguments are written, not for
// `stream_dependency edge(a, b)`) and clang 19 do, clang 15 does not, so the test is registered
// with g++ or clang 19 and newer as nvcc's host compiler.
// The control build is the same with stream_edge.
// expect-error: umsync: stream_dependency is deprecated (removed in 0.3.0): write umsync::stream_edge edge(from, to)
// expect-error: umsync: deferred_edge is deprecated (removed in 0.3.0): write umsync::stream_edge edge(from, to, umsync::deferred)
#include <umsync/stream_edge.hpp>

#pragma GCC diagnostic error "-Wdeprecated-declarations"

struct producer {};
struct consumer {};

void order(umsync::stream<producer> const& ps, umsync::stream<consumer> const& cs)
{
#if defined(UMSYNC_CF_CONTROL)
  umsync::stream_edge<producer, consumer> now(ps, cs);
  umsync::stream_edge<consumer, producer, umsync::edge_timing::deferred> later(cs, ps);
#else
  umsync::stream_dependency<producer, consumer> now(ps, cs);
  umsync::deferred_edge<consumer, producer> later(cs, ps);
#endif
  now.edge();
  later.record();
  later.wait();
}
