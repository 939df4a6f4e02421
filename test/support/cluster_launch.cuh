// Cluster launches for the cluster tests (sync/cluster.hpp), through cudaLaunchKernelEx with
// the cluster dimension attribute; and the device-side helpers those tests share.
#pragma once

#include "support/kernels.cuh"  // spin_for_ns

#include <umsync/error.hpp>

#include <cuda_runtime.h>

#include <cstdint>

namespace umsync_test {

/// True when the device can launch thread block clusters (compute capability 9.0 and newer).
inline bool device_has_clusters()
{
  int device = 0;
  int supported = 0;
  UMSYNC_CUDA_CHECK(cudaGetDevice(&device));
  UMSYNC_CUDA_CHECK(cudaDeviceGetAttribute(&supported, cudaDevAttrClusterLaunch, device));
  return supported != 0;
}

/// kernel<<<blocks, threads>>>(args...) in clusters of `cluster_blocks` blocks along x.
template <class... Params, class... Args>
void launch_in_clusters(void (*kernel)(Params...), unsigned blocks, unsigned cluster_blocks, unsigned threads,
                        Args... args)
{
  cudaLaunchAttribute attribute{};
  attribute.id = cudaLaunchAttributeClusterDimension;
  attribute.val.clusterDim.x = cluster_blocks;
  attribute.val.clusterDim.y = 1;
  attribute.val.clusterDim.z = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(blocks);
  config.blockDim = dim3(threads);
  config.attrs = &attribute;
  config.numAttrs = 1;
  UMSYNC_CUDA_CHECK(cudaLaunchKernelEx(&config, kernel, static_cast<Params>(args)...));
}

}  // namespace umsync_test
