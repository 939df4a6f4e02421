// Rule: a phase's views are writable only where the phase declared a write. The forward
// phase reads the weights (read-mostly advice is in force), so asking for a writable view of
// them does not compile: a write to read-mostly pages collapses every copy.
// expect-error: umsync: a write to a buffer that the phase declared read-only; declare device_read_write or host_read_write for it in this phase
#include <umsync/phase/phase_advisor.hpp>
#include <umsync/stream.hpp>

struct forward {};
struct weights {};
struct activations {};

using plan = umsync::phase_plan<umsync::phase<forward, umsync::uses<weights, umsync::device_read>,
                                              umsync::uses<activations, umsync::device_read_write>>>;

float* writable_weights(umsync::stream<> const& s, umsync::managed_buffer<float>& w, umsync::managed_buffer<float>& a)
{
  auto advisor = umsync::make_phase_advisor<plan>(umsync::bind_buffer<weights>(w), umsync::bind_buffer<activations>(a));
  auto scope = advisor.enter<forward>(s);
#if defined(UMSYNC_CF_CONTROL)
  float const* read = scope.view<weights, umsync::device_read>().data();
  return scope.view<activations, umsync::device_read_write>().data() + (read != nullptr ? 1 : 0);
#else
  return scope.view<weights, umsync::device_read_write>().data();
#endif
}
