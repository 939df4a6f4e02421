// umsync/memory/detail/rebind_key.hpp: the permission to rebind a stream-bound buffer to another
// stream (internal), which only a stream_edge can make, right after it has ordered the streams.
#pragma once

#include <umsync/config.hpp>

UMSYNC_NAMESPACE_BEGIN

enum class edge_timing;
template <class From, class To, edge_timing Timing>
class stream_edge;

namespace detail {

/// The permission to rebind a buffer to another stream. Only a stream_edge can make one, right
/// after it has ordered the two streams, so rebinding without an edge does not compile.
class rebind_key {
  template <class, class, edge_timing>
  friend class umsync::stream_edge;
  rebind_key() = default;
};

}  // namespace detail

UMSYNC_NAMESPACE_END
