// Rule: the stream-bound buffer has one name, stream_buffer; its old name async_pool_buffer is a
// deprecated alias (removed in 0.3.0), and so is its header memory/async_pool_buffer.hpp, which
// only includes memory/stream_buffer.hpp. The alias's warning says what to write; it is made an
// error here with a pragma. Registered where nvcc's host compiler warns for deprecated alias
// templates (g++, clang 19 and newer), as deprecated_edge_names.cu is.
// The control build is the same with stream_buffer.
// expect-error: umsync: async_pool_buffer is deprecated (removed in 0.3.0): write umsync::stream_buffer<T, Tag>, the same type
#include <umsync/memory/async_pool_buffer.hpp>
#include <umsync/stream.hpp>

#include <cstddef>

#pragma GCC diagnostic error "-Wdeprecated-declarations"

struct compute {};

void allocate(umsync::stream<compute> const& s, std::size_t n)
{
#if defined(UMSYNC_CF_CONTROL)
  umsync::stream_buffer<float, compute> buffer(n, s);
#else
  umsync::async_pool_buffer<float, compute> buffer(n, s);
#endif
  static_cast<void>(buffer.size());
}
