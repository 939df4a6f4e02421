// Rule: staging_ring::upload takes the slot by std::move: the copy reads the slot after upload
// returns, so the host must not keep a name it could write the slot through.
// expect-error: umsync: staging_ring::upload takes the slot by std::move(slot): the copy reads the slot after the call returns, so the host must not write it again until acquire() hands it out anew
#include <umsync/memory/staging_ring.hpp>
#include <umsync/memory/stream_buffer.hpp>
#include <umsync/stream.hpp>

#include <utility>

struct loader {};

void stage(umsync::staging_ring<float>& ring, umsync::stream_buffer<float, loader>& batch,
           umsync::stream<loader> const& s)
{
  auto slot = ring.acquire();
  slot[0] = 1.0F;
#if defined(UMSYNC_CF_CONTROL)
  ring.upload(std::move(slot), batch, s);
#else
  ring.upload(slot, batch, s);
#endif
}
