// Rule: a stream_buffer takes its memory from a stream-ordered resource (cuda::mr), which
// allocates and frees on the buffer's stream. A synchronous-only resource could not order the
// free after the work queued on that stream, so it names the rule instead of failing in CCCL.
// expect-error: umsync: stream_buffer takes its memory from a stream-ordered resource, which allocates and frees on the buffer's stream (umsync::stream_ordered_resource: CCCL 3.1's allocate(stream, bytes, alignment) and deallocate(stream, p, bytes, alignment), CCCL 3.0's allocate_async and deallocate_async); a synchronous resource cannot order its free after the buffer's work
#include <umsync/memory/resource.hpp>
#include <umsync/memory/stream_buffer.hpp>
#include <umsync/stream.hpp>

#include "../../support/mock_resources.hpp"

#include <cstddef>

struct compute {};

#if defined(UMSYNC_CF_CONTROL)
using synchronous_arena = umsync_test::null_arena;  // the same, stream-ordered too: accepted
#else
// Synchronous allocation only (the tests' shared mock; 3.0: allocate, 3.1: allocate_sync).
using synchronous_arena = umsync_test::synchronous_only;
#endif

void use(umsync::stream<compute> const& s, synchronous_arena& arena)
{
  umsync::stream_buffer<float, compute> x(64, s, arena);
}
