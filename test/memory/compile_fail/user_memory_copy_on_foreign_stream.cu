// Rule 1 holds for a user's memory in copies too: memory its umsync_memory binds to stream tag A
// cannot be copied on stream tag B (support/user_memory.hpp).
// expect-error: umsync: memory bound to one stream is used on another stream; cross with umsync::stream_edge::transfer (an event edge) first
#include "../../support/user_memory.hpp"

#include <umsync/memory/copy.hpp>
#include <umsync/memory/pinned_buffer.hpp>
#include <umsync/stream.hpp>

struct producer {};
struct consumer {};

void use(umsync::stream<producer> const& ps, umsync::stream<consumer> const& cs, float* memory,
         umsync::pinned_buffer<float>& host)
{
  userlib::stream_array<float, producer> data{memory, 32};
#if defined(UMSYNC_CF_CONTROL)
  umsync::copy_async(host, data, ps);
#else
  umsync::copy_async(host, data, cs);
#endif
  static_cast<void>(ps);
  static_cast<void>(cs);
}
