// Rule 3: async copies accept device, pinned or managed memory only; pageable host memory
// (a std::vector's data) would make the copy block, so it needs copy_sync_pageable.
// expect-error: umsync: async copies take device, pinned or managed memory (umsync buffers or memory_span); a pageable host pointer would make the copy block the host: use umsync::copy_sync_pageable
#include <umsync/memory/copy.hpp>
#include <umsync/memory/stream_buffer.hpp>
#include <umsync/stream.hpp>

#include <vector>

void use(umsync::stream<> const& s)
{
  umsync::stream_buffer<float> data(32, s);
  std::vector<float> host(32);
#if defined(UMSYNC_CF_CONTROL)
  umsync::copy_sync_pageable(host, data, s);
#else
  umsync::copy_async(host.data(), data, s);
#endif
}
