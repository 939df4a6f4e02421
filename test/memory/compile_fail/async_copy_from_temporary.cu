// Rule 4: an async copy from a temporary buffer is rejected: the temporary is freed before
// the copy runs (RMM's T const&& rule).
// expect-error: umsync: async copy from a temporary buffer: it would be freed before the copy runs
#include <umsync/memory/copy.hpp>
#include <umsync/memory/pinned_buffer.hpp>
#include <umsync/memory/stream_buffer.hpp>
#include <umsync/stream.hpp>

umsync::pinned_buffer<float> make_host() { return umsync::pinned_buffer<float>(32); }

void use(umsync::stream<> const& s)
{
  umsync::stream_buffer<float> data(32, s);
#if defined(UMSYNC_CF_CONTROL)
  umsync::pinned_buffer<float> host = make_host();
  umsync::copy_async(data, host, s);
#else
  umsync::copy_async(data, make_host(), s);
#endif
}
