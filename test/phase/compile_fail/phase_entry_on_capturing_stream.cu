// Rule: no phase change on a capturing stream. Entering a phase advises and prefetches,
// which cannot be captured and would invalidate the capture; enter the phase first.
// expect-error: umsync: a phase change on a capturing stream: its advice and prefetch cannot be captured and would invalidate the capture; enter phases before the capture begins or after capture_scope::end()
#include <umsync/capture/capture_status.hpp>
#include <umsync/graph/capture_scope.hpp>
#include <umsync/graph/graph_exec.hpp>
#include <umsync/graph/graph_memory.hpp>
#include <umsync/phase/phase_advisor.hpp>

struct compute {};
struct forward {};
struct weights {};

using plan = umsync::phase_plan<umsync::phase<forward, umsync::uses<weights, umsync::device_read>>>;

umsync::graph step(umsync::stream<compute> const& s, umsync::managed_buffer<float>& w)
{
  auto advisor = umsync::make_phase_advisor<plan>(umsync::bind_buffer<weights>(w));
#if defined(UMSYNC_CF_CONTROL)
  auto phase = advisor.enter<forward>(s);
  umsync::capture_scope scope(s);
#else
  umsync::capture_scope scope(s);
  auto phase = advisor.enter<forward>(scope.stream());
#endif
  static_cast<void>(phase.view<weights>());
  return scope.end();
}
