// umsync/torch/detail/torch_stream_of.hpp: internal. PyTorch's c10::cuda::CUDAStream for a
// cudaStream_t (Tensor::record_stream takes one).
#pragma once

#include <umsync/config.hpp>

#include <c10/cuda/CUDAStream.h>
#include <cuda_runtime_api.h>

UMSYNC_NAMESPACE_BEGIN
namespace detail {

/// PyTorch's handle for the stream umsync's view names (record_stream takes one).
inline c10::cuda::CUDAStream torch_stream_of(cudaStream_t handle, int device)
{
  auto const index = static_cast<c10::DeviceIndex>(device);
  if (handle == nullptr || handle == cudaStreamLegacy) {
    return c10::cuda::getDefaultCUDAStream(index);
  }
  return c10::cuda::getStreamFromExternal(handle, index);
}

}  // namespace detail
UMSYNC_NAMESPACE_END
