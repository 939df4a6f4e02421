// Rule: a stream_buffer holds device memory, so the resource it takes its memory from must
// say that its memory is device accessible (cuda::mr::device_accessible). A host-only resource
// is named here, not in a kernel that faults on its memory.
// expect-error: umsync: stream_buffer holds device memory, so its resource must be device_accessible: it says so with friend void get_property(R const&, cuda::mr::device_accessible) noexcept {}
#include <umsync/memory/resource.hpp>
#include <umsync/memory/stream_buffer.hpp>
#include <umsync/stream.hpp>

#include "../../support/mock_resources.hpp"

#include <cstddef>

struct compute {};

#if defined(UMSYNC_CF_CONTROL)
using host_arena = umsync_test::null_arena;  // the same, device accessible: accepted
#else
// Stream-ordered, but its memory is host memory (the tests' shared mock).
using host_arena = umsync_test::host_only;
#endif

void use(umsync::stream<compute> const& s, host_arena& arena) { umsync::stream_buffer<float, compute> x(64, s, arena); }
