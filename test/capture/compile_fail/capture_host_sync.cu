// Rule: no host synchronization on a capturing stream. Captured work has not run, so there is
// nothing to wait for, and cudaStreamSynchronize would invalidate the capture. Launch, then wait.
// expect-error: umsync: host synchronization on a capturing stream: captured work does not run until the graph is launched, and cudaStreamSynchronize would invalidate the capture; launch the graph_exec, then synchronize
#include <umsync/capture/capture_status.hpp>
#include <umsync/graph/capture_scope.hpp>
#include <umsync/graph/graph_exec.hpp>
#include <umsync/graph/graph_memory.hpp>
#include <umsync/launch.hpp>

struct compute {};

__global__ void fill(float* out) { out[threadIdx.x] = 1.0f; }

void step(umsync::stream<compute> const& s, float* out)
{
  umsync::graph g = [&] {
    umsync::capture_scope scope(s);
    umsync::launch(scope.stream(), {.grid = 1, .block = 32}, fill, out);
#if !defined(UMSYNC_CF_CONTROL)
    umsync::synchronize(scope.stream());
#endif
    return scope.end();
  }();
  umsync::graph_exec exec(g);
  exec.launch(s);
  umsync::synchronize(s);
}
