// Rule: no cudaMalloc-style allocation for a capturing stream. cudaMalloc is not stream-ordered
// and is not captured (the graph would replay with one fixed allocation, or none); the call
// would invalidate the capture. Inside a capture, allocate with stream_buffer: a graph
// memory node. umsync has no cudaMalloc buffer yet, so a test-only allocator states the rule
// the way such a buffer will (forbid_in_capture<capture_unsafe::synchronous_allocation>).
// expect-error: umsync: cudaMalloc-style allocation on a capturing stream: it is not stream-ordered, is not captured and would invalidate the capture; allocate with stream_buffer (a graph memory node) or before the capture begins
#include <umsync/capture/capture_status.hpp>
#include <umsync/graph/capture_scope.hpp>
#include <umsync/graph/graph_exec.hpp>
#include <umsync/graph/graph_memory.hpp>
#include <umsync/memory/stream_buffer.hpp>

#include <cstddef>

struct compute {};

// Test-only: the shape of a cudaMalloc-backed buffer that names the stream it serves.
template <umsync::stream_handle Stream>
float* test_only_cuda_malloc_for(Stream const& stream, std::size_t count)
{
  umsync::forbid_in_capture<umsync::capture_unsafe::synchronous_allocation, Stream>();
  umsync::check_not_capturing("cudaMalloc");
  static_cast<void>(stream);
  void* memory = nullptr;
  UMSYNC_CUDA_CHECK(cudaMalloc(&memory, count * sizeof(float)));
  return static_cast<float*>(memory);
}

umsync::graph step(umsync::stream<compute> const& s)
{
  umsync::capture_scope scope(s);
  {
#if defined(UMSYNC_CF_CONTROL)
    umsync::stream_buffer<float, compute> scratch(1024, scope.stream());
#else
    float* scratch = test_only_cuda_malloc_for(scope.stream(), 1024);
    static_cast<void>(scratch);
#endif
  }
  return scope.end();
}
