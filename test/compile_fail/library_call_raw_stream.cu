// Rule: a library call names a umsync stream, whose tag its memory is checked against, as a
// launch does. A raw cudaStream_t (a library's, a framework's) is adopted as a
// stream_view<Tag> first.
// expect-error: umsync: umsync's stream-ordered calls take a umsync stream (stream<Tag>, stream_view<Tag> or capturing_stream<Tag>), whose tag memory is checked against; adopt a raw cudaStream_t with umsync::stream_view<Tag>{handle}
#include <umsync/library_call.hpp>
#include <umsync/memory/stream_buffer.hpp>

#include <cstddef>

struct compute {};

void clear(cudaStream_t from_a_library, umsync::stream_buffer<float, compute>& x)
{
  auto const memset = [](cudaStream_t s, float* p, std::size_t bytes) { return cudaMemsetAsync(p, 0, bytes, s); };
#if defined(UMSYNC_CF_CONTROL)
  umsync::stream_view<compute> const s{from_a_library};
  static_cast<void>(umsync::library_call(s, memset, x, x.size_bytes()));
#else
  umsync::library_call(from_a_library, memset, x, x.size_bytes());
#endif
}
