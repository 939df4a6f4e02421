// Rule: prefetch is for managed memory only. Device (pool) memory never migrates; prefetching
// it, directly or by adding it to a managed_batch, names the rule.
// expect-error: umsync: memory advice and prefetch apply to managed memory only (managed_buffer, managed_span, or a type whose umsync_memory says managed); device, pool and pinned memory never migrate, so there is nothing to advise
#include <umsync/memory/managed_batch.hpp>
#include <umsync/memory/stream_buffer.hpp>
#include <umsync/stream.hpp>

void stage(umsync::stream<> const& s, umsync::stream_buffer<float>& device, umsync::managed_buffer<float>& managed)
{
  auto const to = umsync::managed_location::device(0);
  umsync::managed_batch batch;
#if defined(UMSYNC_CF_CONTROL)
  umsync::prefetch(managed, to, s);
  batch.add(managed, to);
  static_cast<void>(device);
#else
  umsync::prefetch(device, to, s);
  batch.add(device, to);
  static_cast<void>(managed);
#endif
}
