// Rule 2: dropping a transfer's result is an error (it would free the buffer at once).
// expect-error: umsync: dropping a transfer's result frees the buffer; keep the returned buffer
#include <umsync/stream_edge.hpp>

struct producer {};
struct consumer {};

void use(umsync::stream<producer> const& ps, umsync::stream<consumer> const& cs)
{
  umsync::stream_buffer<float, producer> data(32, ps);
  umsync::stream_edge edge(ps, cs);
#if defined(UMSYNC_CF_CONTROL)
  auto kept = edge.transfer(std::move(data));
  static_cast<void>(kept);
#else
  edge.transfer(std::move(data));
#endif
}
