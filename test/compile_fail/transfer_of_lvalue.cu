// Rule: transfer takes the buffer by std::move: the source stream's name for it must not be
// used after the handoff. A generic caller that forwards an lvalue gets the same message.
// expect-error: umsync: transfer takes the buffer by std::move(buffer): the source stream's name for it must not be used after the handoff
#include <umsync/stream_edge.hpp>

#include <utility>

struct producer {};
struct consumer {};

template <class Edge, class Buffer>
auto hand_over(Edge& edge, Buffer&& buffer)
{
  return edge.transfer(std::forward<Buffer>(buffer));
}

umsync::stream_buffer<float, consumer> handoff(umsync::stream<producer> const& ps, umsync::stream<consumer> const& cs,
                                               umsync::stream_buffer<float, producer>& x)
{
  umsync::stream_edge edge(ps, cs);
#if defined(UMSYNC_CF_CONTROL)
  return hand_over(edge, std::move(x));
#else
  return hand_over(edge, x);
#endif
}
