// Rule: a kernel pointer parameter receives memory umsync knows. A struct that merely holds a
// buffer is not memory; before, the launch failed inside launch.hpp with "no suitable
// conversion function".
// expect-error: umsync: a launch argument does not convert to its kernel parameter; memory must be an umsync buffer, a memory_span or a type that answers umsync_memory (memory/memory_range.hpp)
#include <umsync/launch.hpp>
#include <umsync/memory/stream_buffer.hpp>
#include <umsync/stream.hpp>

struct compute {};

struct layer {
  umsync::stream_buffer<float, compute> weights;
  int width;
};

__global__ void zero(float* x, int n)
{
  if (static_cast<int>(threadIdx.x) < n) x[threadIdx.x] = 0.0F;
}

void reset(umsync::stream<compute> const& s, layer& l)
{
#if defined(UMSYNC_CF_CONTROL)
  umsync::launch(s, {.grid = 1, .block = 64}, zero, l.weights, l.width);
#else
  umsync::launch(s, {.grid = 1, .block = 64}, zero, l, l.width);
#endif
}
