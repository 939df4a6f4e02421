// Rule: a library call writes only memory the caller may write. A const buffer given to the
// callable's T* parameter names the rule; a parameter T const* reads it.
// expect-error: umsync: read-only memory (a const buffer, a span of const, a shared view or a read-only phase's view) is passed to a library call's parameter that may write it (T*); declare the callable's parameter T const*, or pass memory the caller may write
#include <umsync/library_call.hpp>
#include <umsync/memory/stream_buffer.hpp>
#include <umsync/stream.hpp>

#include <cstddef>

struct compute {};

cudaError_t duplicate(umsync::stream<compute> const& s, umsync::stream_buffer<float, compute> const& in,
                      umsync::stream_buffer<float, compute>& out)
{
#if defined(UMSYNC_CF_CONTROL)
  auto const copy = [](cudaStream_t raw, float* dst, float const* src, std::size_t bytes) {
#else
  auto const copy = [](cudaStream_t raw, float* dst, float* src, std::size_t bytes) {
#endif
    return cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, raw);
  };
  return umsync::library_call(s, copy, out, in, in.size_bytes());
}
