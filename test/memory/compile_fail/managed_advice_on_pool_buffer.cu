// Rule: memory advice is for managed memory only. Pool (device) memory never migrates, so
// advising it is a mistake; umsync::advise accepts managed_buffer and managed_span only.
// expect-error: umsync: memory advice and prefetch apply to managed memory only (managed_buffer, managed_span, or a type whose umsync_memory says managed); device, pool and pinned memory never migrate, so there is nothing to advise
#include <umsync/memory/managed_buffer.hpp>
#include <umsync/memory/stream_buffer.hpp>
#include <umsync/stream.hpp>

void use(umsync::stream<> const& s)
{
  umsync::stream_buffer<float> pool_memory(32, s);
  umsync::managed_buffer<float> managed(32);
#if defined(UMSYNC_CF_CONTROL)
  umsync::advise(managed, umsync::advice::read_mostly{});
  umsync::advise(managed.span(), umsync::advice::preferred_location{umsync::managed_location::device(0)});
  static_cast<void>(pool_memory);
#else
  umsync::advise(pool_memory, umsync::advice::read_mostly{});
  static_cast<void>(managed);
#endif
}
