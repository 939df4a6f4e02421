// Rule 4: buffers are move-only; a deep copy names its stream.
// expect-error: umsync: buffers are move-only; a deep copy names its stream: stream_buffer(other, stream)
#include <umsync/memory/stream_buffer.hpp>
#include <umsync/stream.hpp>

void use(umsync::stream<> const& s)
{
  umsync::stream_buffer<float> data(32, s);
#if defined(UMSYNC_CF_CONTROL)
  umsync::stream_buffer<float> copy(data, s);
#else
  umsync::stream_buffer<float> copy(data);
#endif
  static_cast<void>(copy);
}
