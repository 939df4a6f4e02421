// umsync/memory/async_pool_buffer.hpp: deprecated since 0.2.0, removed in 0.3.0. The buffer is
// umsync::stream_buffer now, in umsync/memory/stream_buffer.hpp: include that instead. This
// header only forwards to it; its deprecated alias async_pool_buffer<T, Tag> (the same type,
// removed in 0.3.0 too) is declared there.
#pragma once

#include <umsync/memory/stream_buffer.hpp>
