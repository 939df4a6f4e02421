// Rule: a launch or a copy names a umsync stream, whose tag its memory is checked against. A
// raw cudaStream_t (a library's, a framework's) is adopted as a stream_view<Tag> first; before,
// the call failed with "no instance of function template matches".
// expect-error: umsync: umsync's stream-ordered calls take a umsync stream (stream<Tag>, stream_view<Tag> or capturing_stream<Tag>), whose tag memory is checked against; adopt a raw cudaStream_t with umsync::stream_view<Tag>{handle}
#include <umsync/launch.hpp>
#include <umsync/memory/copy.hpp>
#include <umsync/memory/stream_buffer.hpp>

struct compute {};

__global__ void zero(float* x, int n)
{
  if (static_cast<int>(threadIdx.x) < n) x[threadIdx.x] = 0.0F;
}

void reset(cudaStream_t from_a_library, umsync::stream_buffer<float, compute>& x,
           umsync::stream_buffer<float, compute> const& y)
{
#if defined(UMSYNC_CF_CONTROL)
  umsync::stream_view<compute> const s{from_a_library};
  umsync::launch(s, {.grid = 1, .block = 64}, zero, x, 64);
  umsync::copy_async(x, y, s);
#else
  umsync::launch(from_a_library, {.grid = 1, .block = 64}, zero, x, 64);
  umsync::copy_async(x, y, from_a_library);
#endif
}
