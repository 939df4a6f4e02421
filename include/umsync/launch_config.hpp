// umsync/launch_config.hpp: the shape of a kernel launch (grid, block, dynamic shared memory,
// cluster) and where it is written, as umsync::launch and launch_dependent take it
// (launch.hpp).
#pragma once

#include <umsync/config.hpp>

#include <cstddef>
#include <source_location>

UMSYNC_NAMESPACE_BEGIN

struct launch_config {
  dim3 grid{1};
  dim3 block{1};
  std::size_t shared_bytes = 0;
  /// The thread block cluster shape (blocks per cluster in x, y, z). The default {0, 0, 0}
  /// launches without a cluster attribute (a kernel with __cluster_dims__ keeps its own shape).
  dim3 cluster{0, 0, 0};
  /// Where the launch is written (filled in at the call's `{...}`): named by the UMSYNC_DEBUG
  /// ordering checker.
  std::source_location where = std::source_location::current();
};
UMSYNC_NAMESPACE_END
