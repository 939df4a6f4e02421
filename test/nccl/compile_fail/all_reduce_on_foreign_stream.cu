// Rule 1 for collectives: a gradient bucket bound to the compute stream's tag cannot be
// all-reduced on the communication stream; it crosses with stream_edge::transfer
// (event record on compute, wait on the communication stream) first.
// expect-error: umsync: all_reduce on memory bound to another stream; cross to the communication stream with umsync::stream_edge::transfer (an event edge) first
#include <umsync/nccl/collectives.hpp>
#include <umsync/stream_edge.hpp>

struct compute {};
struct comm {};

void reduce(umsync::stream<compute> const& cs, umsync::stream<comm> const& ns, umsync::nccl::communicator const& c)
{
  umsync::stream_buffer<float, compute> grads(1024, cs);
#if defined(UMSYNC_CF_CONTROL)
  umsync::stream_edge to_comm(cs, ns);
  auto on_comm = to_comm.transfer(std::move(grads));
  umsync::nccl::all_reduce(on_comm, umsync::nccl::reduction::sum, c, ns);
#else
  umsync::nccl::all_reduce(grads, umsync::nccl::reduction::sum, c, ns);
#endif
}
