// Uses every checked operation once. Built twice: in release, host.release_has_no_checker
// proves no ordering-checker code is in the object; with UMSYNC_DEBUG, the control
// host.debug_has_checker proves the probe would have seen it.
#include <umsync/umsync.hpp>

namespace {
struct compute {};
struct copy {};
__global__ void scale(float* data, int n)
{
  if (threadIdx.x < n) data[threadIdx.x] *= 2.0f;
}
}  // namespace

void umsync_release_probe(umsync::stream<compute> const& a, umsync::stream<copy> const& b)
{
  umsync::stream_buffer<float, compute> data(32, a);
  umsync::launch(a, {.grid = 1, .block = 32}, scale, data, 32);
  umsync::stream_edge edge(a, b);
  auto moved = edge.transfer(std::move(data));
  umsync::pinned_buffer<float> host(32);
  umsync::copy_async(host, moved, b);
  umsync::event done;
  done.record(b);
  a.wait(done);
  b.synchronize();
}
