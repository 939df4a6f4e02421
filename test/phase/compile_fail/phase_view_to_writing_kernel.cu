// Rule: a read-only phase's view does not reach a kernel that writes. The forward phase reads
// the weights (read-mostly advice in force); passing its view to a kernel taking float* names
// the rule.
// expect-error: umsync: read-only memory (a const buffer, a span of const, a shared view or a read-only phase's view) is passed to a kernel parameter that may write it (T*); declare the parameter T const*, or pass memory the caller may write
#include <umsync/launch.hpp>
#include <umsync/phase/phase_advisor.hpp>
#include <umsync/stream.hpp>

struct forward {};
struct weights {};

using plan = umsync::phase_plan<umsync::phase<forward, umsync::uses<weights, umsync::device_read>>>;

__global__ void update(float* w, int n)
{
  if (static_cast<int>(threadIdx.x) < n) w[threadIdx.x] -= 0.1F;
}
__global__ void read(float const* w, int n)
{
  if (static_cast<int>(threadIdx.x) < n && w[threadIdx.x] < 0.0F) __trap();
}

void step(umsync::stream<> const& s, umsync::managed_buffer<float>& w)
{
  auto advisor = umsync::make_phase_advisor<plan>(umsync::bind_buffer<weights>(w));
  auto scope = advisor.enter<forward>(s);
#if defined(UMSYNC_CF_CONTROL)
  umsync::launch(s, {.grid = 1, .block = 64}, read, scope.view<weights>(), 64);
#else
  umsync::launch(s, {.grid = 1, .block = 64}, update, scope.view<weights>(), 64);
#endif
}
