// Rule 1, on the example users copy: examples/stream_handoff.cu without its
// stream_edge::transfer does not compile (the consumer stream would read the producer's
// buffer with no event edge). The control build is the example as shipped, with the edge.
// expect-error: umsync: memory bound to one stream is used on another stream; cross with umsync::stream_edge::transfer (an event edge) first
#if !defined(UMSYNC_CF_CONTROL)
#  define UMSYNC_EXAMPLE_WITHOUT_EDGE
#endif
#include "../../examples/stream_handoff.cu"
