// umsync/torch/keep_alive.hpp: the explicit record_stream path, for memory that must stay in use
// on another stream without the allocating stream waiting (docs/torch.md).
//
//   auto from = umsync::torch::keep_alive_on<float const>(tmp, home, on_side);
#pragma once

#include <umsync/config.hpp>
#include <umsync/error.hpp>
#include <umsync/memory/memory_span.hpp>
#include <umsync/stream_edge.hpp>
#include <umsync/stream_view.hpp>
#include <umsync/torch/detail/tensor_check.hpp>
#include <umsync/torch/detail/tensor_use.hpp>
#include <umsync/torch/detail/torch_stream_of.hpp>

#include <ATen/core/Tensor.h>

#include <cstddef>
#include <source_location>
#include <string>

UMSYNC_NAMESPACE_BEGIN
namespace torch {

/// The explicit record_stream path: `side` waits for `home`'s work so far, then
/// `tensor.record_stream(side)` tells the caching allocator that the tensor is used on `side`, so
/// that its block is reused only after the side stream's work queued before the free completes.
/// The home stream never waits for the side stream: right for memory that must stay in use on the
/// other stream (a communication or copy stream that outlives the home stream's use). Returns the
/// tensor's span bound to `side`.
template <class T, stream_handle HomeStream, stream_handle SideStream>
[[nodiscard]] device_span<T, typename SideStream::tag_type> keep_alive_on(
    at::Tensor const& tensor, HomeStream const& home, SideStream const& side,
    std::source_location where = std::source_location::current())
{
  using home_tag = typename HomeStream::tag_type;
  using side_tag = typename SideStream::tag_type;
  int const device = detail::device_of_stream(side.get(), where);
  int const home_device = detail::device_of_stream(home.get(), where);
  if (home_device != device) {
    throw usage_error("umsync::torch::keep_alive_on at ", where, ": the home stream belongs to cuda:", home_device,
                      " and the side stream to cuda:", device, " (a stream of another device)");
  }
  detail::check_tensor<T>(tensor, detail::place::device, device, "keep_alive_on", where);
  stream_edge<home_tag, side_tag> contents(stream_view<home_tag>{home.get()}, stream_view<side_tag>{side.get()}, where);
  contents.edge(where);
  tensor.record_stream(detail::torch_stream_of(side.get(), device));
  detail::note_tensor_use(tensor, side.get(), detail::access_of<T>(), where, true);
  return device_span<T, side_tag>::adopt(detail::data_of<T>(tensor), static_cast<std::size_t>(tensor.numel()));
}

}  // namespace torch
UMSYNC_NAMESPACE_END
