// Rule: a stream_buffer made from a cuda::mr resource needs <umsync/memory/resource.hpp>.
// The buffer header leaves cuda::mr's concepts out, so that code without resources does not
// compile them (docs/compile-cost.md); a resource given to a buffer where they are missing
// names the header instead of failing on an incomplete type.
// expect-error: umsync: a stream_buffer made from a memory resource needs #include <umsync/memory/resource.hpp> (the cuda::mr concepts, which the buffer header leaves out so that code without resources does not compile them)
#include <umsync/memory/stream_buffer.hpp>
#include <umsync/stream.hpp>
#if defined(UMSYNC_CF_CONTROL)
// The same code with the resource header: accepted.
#  include <umsync/memory/resource.hpp>
#endif

#include "../../support/mock_resources.hpp"

#include <cstddef>

struct compute {};

// A stream-ordered resource of device-accessible memory (the tests' shared mock).
using arena = umsync_test::null_arena;

void use(umsync::stream<compute> const& s, arena& resource)
{
  umsync::stream_buffer<float, compute> x(64, s, resource);
}
