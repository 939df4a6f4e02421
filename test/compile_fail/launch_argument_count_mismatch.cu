// Rule: launch takes one argument per kernel parameter, as <<<>>> does; a default argument of the
// kernel does not reach it through the function pointer.
// expect-error: umsync: launch needs one argument per kernel parameter
#include <umsync/launch.hpp>
#include <umsync/memory/stream_buffer.hpp>

#include <cstddef>

struct compute {};

__global__ void scale(float* out, std::size_t n, float factor = 2.0F)
{
  std::size_t const i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  if (i < n) {
    out[i] *= factor;
  }
}

void step(umsync::stream_view<compute> s, umsync::stream_buffer<float, compute>& out)
{
  umsync::launch_config const cfg{.grid = 1, .block = 256};
#if defined(UMSYNC_CF_CONTROL)
  umsync::launch(s, cfg, scale, out, out.size(), 2.0F);
#else
  umsync::launch(s, cfg, scale, out, out.size());  // factor left to its default
#endif
}
