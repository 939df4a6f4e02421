// Rule: no prefetch on a capturing stream, through prefetch_pipelined too (a free function
// template whose streams are deduced).
// expect-error: umsync: prefetch on a capturing stream: cudaMemPrefetchAsync cannot be captured and would invalidate the capture; prefetch before the capture begins or after capture_scope::end()
#include <umsync/graph/capture_scope.hpp>
#include <umsync/memory/pipelined_prefetch.hpp>

struct compute {};
struct copy {};

void step(umsync::stream<compute> const& s, umsync::stream<copy> const& c, umsync::managed_buffer<float>& buffer)
{
  auto const consume = [](umsync::managed_span<float const>, umsync::stream_view<compute>) {};
  auto const to = umsync::managed_location::device(0);
#if defined(UMSYNC_CF_CONTROL)
  static_cast<void>(umsync::prefetch_pipelined(buffer, to, c, s, 1024, consume));
#else
  umsync::capture_scope scope(s);
  static_cast<void>(umsync::prefetch_pipelined(buffer, to, c, scope.stream(), 1024, consume));
  static_cast<void>(scope.end());
#endif
}
