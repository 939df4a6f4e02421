// Rule: a library call names a umsync stream, whose tag its memory is checked against, also when
// its result is used as documented (`cublasStatus_t const status = umsync::library_call(...)`).
// The rejected call still has the callable's result type, so the rule's message is the only
// error, and the messages of the file's other rejected calls (here one with memory of another
// tag, after it) are not lost.
// expect-error: umsync: umsync's stream-ordered calls take a umsync stream (stream<Tag>, stream_view<Tag> or capturing_stream<Tag>), whose tag memory is checked against; adopt a raw cudaStream_t with umsync::stream_view<Tag>{handle}
// expect-error: umsync: memory bound to one stream is used on another stream; cross with umsync::stream_edge::transfer (an event edge) first
#include <umsync/library_call.hpp>
#include <umsync/memory/stream_buffer.hpp>

#include <cstddef>

struct compute {};
struct copy {};

cudaError_t clear(cudaStream_t from_a_library, umsync::stream_view<compute> s, umsync::stream_buffer<float, compute>& x,
                  umsync::stream_buffer<float, copy>& y)
{
  auto const memset = [](cudaStream_t raw, float* p, std::size_t bytes) { return cudaMemsetAsync(p, 0, bytes, raw); };
  auto const generic = [](cudaStream_t raw, auto* p, std::size_t bytes) { return cudaMemsetAsync(p, 0, bytes, raw); };
#if defined(UMSYNC_CF_CONTROL)
  umsync::stream_view<compute> const adopted{from_a_library};
  cudaError_t const first = umsync::library_call(adopted, memset, x, x.size_bytes());
  cudaError_t const second = umsync::library_call(adopted, generic, x, x.size_bytes());
  cudaError_t const third = umsync::library_call(s, memset, x, y.size_bytes());
#else
  cudaError_t const first = umsync::library_call(from_a_library, memset, x, x.size_bytes());
  cudaError_t const second = umsync::library_call(from_a_library, generic, x, x.size_bytes());
  cudaError_t const third = umsync::library_call(s, memset, y, y.size_bytes());
#endif
  return first != cudaSuccess ? first : second != cudaSuccess ? second : third;
}
