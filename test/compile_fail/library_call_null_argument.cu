// Rule: NULL or 0 for an optional pointer parameter arrives forwarded as an integer (NULL is a
// long), which no pointer parameter takes; the message says what to pass: nullptr (no memory,
// nothing to check) or an empty memory_span.
// expect-error: umsync: an integer (NULL or 0) is passed to a library call's parameter that is a pointer; pass nullptr for no memory, or an empty memory_span
#include <umsync/library_call.hpp>
#include <umsync/memory/stream_buffer.hpp>

#include <cstddef>

struct compute {};

cudaError_t add_bias(umsync::stream_view<compute> s, umsync::stream_buffer<float, compute>& out)
{
  // A library entry point with an optional input: a null bias means none.
  auto const call = [](cudaStream_t raw, float* p, float const* bias, std::size_t bytes) {
    return bias == nullptr ? cudaSuccess : cudaMemcpyAsync(p, bias, bytes, cudaMemcpyDefault, raw);
  };
#if defined(UMSYNC_CF_CONTROL)
  cudaError_t const first = umsync::library_call(s, call, out, nullptr, out.size_bytes());
  cudaError_t const second = umsync::library_call(s, call, out, nullptr, out.size_bytes());
#else
  cudaError_t const first = umsync::library_call(s, call, out, NULL, out.size_bytes());
  cudaError_t const second = umsync::library_call(s, call, out, 0, out.size_bytes());
#endif
  return first != cudaSuccess ? first : second;
}
