// Rule: a stream_buffer borrows the resource it takes its memory from, and frees to it when
// destroyed, so the resource must outlive the buffer (RMM's device_buffer, which holds an owning
// cuda::mr::any_resource, is no model here). A temporary resource dies at the end of the
// statement: refused. A device_resource_ref, which only refers to a resource, may be a temporary.
// expect-error: umsync: stream_buffer borrows its resource (it holds no owning copy, unlike RMM's device_buffer and its cuda::mr::any_resource), so the resource must outlive the buffer and a temporary dies first: name the resource as a variable, or wrap a named one in a umsync::device_resource_ref to pass a reference
#include <umsync/memory/resource.hpp>
#include <umsync/memory/stream_buffer.hpp>
#include <umsync/stream.hpp>

#include "../../support/mock_resources.hpp"

#include <cstddef>

struct compute {};

using device_arena = umsync_test::null_arena;  // the tests' shared mock

void use(umsync::stream<compute> const& s, device_arena& arena)
{
#if defined(UMSYNC_CF_CONTROL)
  umsync::stream_buffer<float, compute> x(64, s, arena);
  umsync::stream_buffer<float, compute> y(64, s, umsync::device_resource_ref(arena));
#else
  umsync::stream_buffer<float, compute> x(64, s, device_arena{});
#endif
  static_cast<void>(arena);
}
