// Uses each operation that opens an NVTX range once: a transfer, a share and an edge, a phase
// entry and a capture. Built twice: without UMSYNC_NVTX, host.release_has_no_nvtx proves that
// no NVTX code and no range name is in the object; with it, host.nvtx_build_has_ranges proves
// that the check would have seen them. Nothing here is named "nvtx", which the check looks for.
#include <umsync/umsync.hpp>

namespace {
struct loader {};
struct compute {};
struct forward {};
struct weights {};
using plan = umsync::phase_plan<umsync::phase<forward, umsync::uses<weights, umsync::device_read>>>;
}  // namespace

void umsync_ranges_probe(umsync::stream<loader> const& a, umsync::stream<compute> const& b,
                         umsync::managed_buffer<float>& w)
{
  umsync::stream_buffer<float, loader> data(32, a);
  umsync::stream_buffer<float, loader> kept(32, a);
  umsync::stream_edge edge(a, b);
  auto moved = edge.transfer(std::move(data));
  auto view = edge.share(kept);
  static_cast<void>(view);
  umsync::stream_edge(b, a).edge();
  auto advisor = umsync::make_phase_advisor<plan>(umsync::bind_buffer<weights>(w));
  {
    auto scope = advisor.enter<forward>(b);
  }
  umsync::graph captured = [&] {
    umsync::capture_scope scope(b);
    return scope.end();
  }();
  b.synchronize();
}
