// Rule 4: buffers are move-only; a deep copy names its stream.
// expect-error: umsync: buffers are move-only; a deep copy names its stream: async_pool_buffer(other, stream)
#include <umsync/memory/async_pool_buffer.hpp>
#include <umsync/stream.hpp>

void use(umsync::stream<> const& s)
{
  umsync::async_pool_buffer<float> data(32, s);
#if defined(UMSYNC_CF_CONTROL)
  umsync::async_pool_buffer<float> copy(data, s);
#else
  umsync::async_pool_buffer<float> copy(data);
#endif
  static_cast<void>(copy);
}
