// Rule: umsync does not reinterpret memory. A buffer of float passed where the kernel takes
// int* names the rule (memory of T goes to T* or T const*).
// expect-error: umsync: memory is passed to a kernel parameter that is not a pointer to its element type; umsync does not reinterpret memory: the parameter must be T* or T const* for memory of T (umsync::reinterpret_span views it as another element type)
#include <umsync/launch.hpp>
#include <umsync/memory/stream_buffer.hpp>
#include <umsync/stream.hpp>

struct compute {};

__global__ void zero_bits(int* x, int n)
{
  if (static_cast<int>(threadIdx.x) < n) x[threadIdx.x] = 0;
}

void reset(umsync::stream<compute> const& s, umsync::stream_buffer<float, compute>& x,
           umsync::stream_buffer<int, compute>& bits)
{
#if defined(UMSYNC_CF_CONTROL)
  umsync::launch(s, {.grid = 1, .block = 64}, zero_bits, bits, 64);
  static_cast<void>(x);
#else
  umsync::launch(s, {.grid = 1, .block = 64}, zero_bits, x, 64);
  static_cast<void>(bits);
#endif
}
