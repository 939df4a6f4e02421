// Rule: read-only memory is not passed to a kernel parameter that may write it. A shared view
// (stream_edge::share) is read-only on the destination; before, the launch failed inside
// launch.hpp with "static_cast cannot cast away const".
// expect-error: umsync: read-only memory (a const buffer, a span of const, a shared view or a read-only phase's view) is passed to a kernel parameter that may write it (T*); declare the parameter T const*, or pass memory the caller may write
#include <umsync/launch.hpp>
#include <umsync/stream_edge.hpp>

struct producer {};
struct consumer {};

__global__ void scale(float* x, int n)
{
  if (static_cast<int>(threadIdx.x) < n) x[threadIdx.x] *= 2.0F;
}
__global__ void sum(float const* x, float* out, int n)
{
  if (threadIdx.x == 0) {
    for (int i = 0; i < n; ++i) *out += x[i];
  }
}

void use(umsync::stream<producer> const& ps, umsync::stream<consumer> const& cs,
         umsync::stream_buffer<float, producer> const& x, umsync::stream_buffer<float, consumer>& out)
{
  umsync::stream_edge edge(ps, cs);
  auto const view = edge.share(x);
#if defined(UMSYNC_CF_CONTROL)
  umsync::launch(cs, {.grid = 1, .block = 64}, sum, view, out, 64);
#else
  umsync::launch(cs, {.grid = 1, .block = 64}, scale, view, 64);
  static_cast<void>(out);
#endif
}
