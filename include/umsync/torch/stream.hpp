// umsync/torch/stream.hpp: PyTorch's streams as tagged umsync stream views.
//
//   struct torch_stream {};  struct side {};
//   auto home = umsync::torch::current_stream<torch_stream>();   // at::cuda::getCurrentCUDAStream()
//   auto on_side = umsync::torch::stream_of<side>(at::cuda::getStreamFromPool());
#pragma once

#include <umsync/config.hpp>
#include <umsync/error.hpp>
#include <umsync/stream_view.hpp>

#include <c10/cuda/CUDAFunctions.h>
#include <c10/cuda/CUDAStream.h>
#include <cuda_runtime_api.h>

#include <source_location>
#include <string>

UMSYNC_NAMESPACE_BEGIN
namespace torch {

/// A PyTorch stream as a umsync stream view tagged `Tag`. PyTorch names its default stream with a
/// null cudaStream_t, which it means as the legacy default stream: the view names that stream
/// explicitly (cudaStreamLegacy), as umsync never adopts a null handle. That handle means the
/// current device's legacy stream, so the default stream of another device than the current one
/// throws usage_error (make that device current first: c10::cuda::CUDAGuard).
template <class Tag = untagged>
[[nodiscard]] inline stream_view<Tag> stream_of(c10::cuda::CUDAStream const& stream,
                                                std::source_location where = std::source_location::current())
{
  cudaStream_t const handle = stream.stream();
  if (handle == nullptr) {
    c10::DeviceIndex const current = c10::cuda::current_device();
    if (stream.device_index() != current) {
      int const device = stream.device_index();
      throw usage_error("umsync::torch::stream_of at ", where, ": the default stream of cuda:", device,
                        " while cuda:", static_cast<int>(current),
                        " is the current device (a stream of another device); its handle would name the current "
                        "device's stream: make cuda:",
                        device, " current first (c10::cuda::CUDAGuard)");
    }
    return stream_view<Tag>{cudaStreamLegacy};
  }
  return stream_view<Tag>{handle};
}

/// PyTorch's current stream of `device` (-1: the current device), at::cuda::getCurrentCUDAStream,
/// as a view tagged `Tag`: the stream torch's own ops run on, and allocate on.
template <class Tag = untagged>
[[nodiscard]] inline stream_view<Tag> current_stream(c10::DeviceIndex device = -1,
                                                     std::source_location where = std::source_location::current())
{
  return stream_of<Tag>(c10::cuda::getCurrentCUDAStream(device), where);
}

}  // namespace torch
UMSYNC_NAMESPACE_END
