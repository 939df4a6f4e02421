// Rule: NULL or 0 for an optional pointer parameter of a kernel arrives forwarded as an integer
// (NULL is a long), which no pointer parameter takes; the message says what to pass: nullptr (no
// memory, nothing to check) or an empty memory_span.
// expect-error: umsync: an integer (NULL or 0) is passed to a kernel parameter that is a pointer; pass nullptr for no memory, or an empty memory_span
#include <umsync/launch.hpp>
#include <umsync/memory/stream_buffer.hpp>

#include <cstddef>

struct compute {};

__global__ void add_bias(float* out, float const* bias, std::size_t n)
{
  std::size_t const i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  if (i < n) {
    out[i] += bias != nullptr ? bias[i] : 1.0F;
  }
}

void step(umsync::stream_view<compute> s, umsync::stream_buffer<float, compute>& out)
{
  umsync::launch_config const cfg{.grid = 1, .block = 256};
#if defined(UMSYNC_CF_CONTROL)
  umsync::launch(s, cfg, add_bias, out, nullptr, out.size());
#else
  umsync::launch(s, cfg, add_bias, out, NULL, out.size());
#endif
}
