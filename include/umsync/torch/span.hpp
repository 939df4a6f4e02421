// umsync/torch/span.hpp: a tensor's elements as a checked umsync span (device, pinned or
// pageable), named as_*_span so that the span types keep their names.
//
//   auto in = umsync::torch::as_device_span<float const>(x, home);   // bound to home's tag
//   auto from = umsync::torch::as_pinned_span<float const>(host);     // for umsync::copy_async
//
// Every span is checked at run time against the tensor: dtype against the element type,
// contiguity, device kind (CUDA, pinned or pageable CPU) and device index against the stream's
// device; a failure throws umsync::usage_error naming the tensor's dtype, device, sizes and
// strides (a RuntimeError in Python).
#pragma once

#include <umsync/config.hpp>
#include <umsync/memory/memory_span.hpp>
#include <umsync/stream_view.hpp>
#include <umsync/torch/detail/tensor_check.hpp>
#include <umsync/torch/detail/tensor_use.hpp>

#include <ATen/core/Tensor.h>

#include <cstddef>
#include <source_location>

UMSYNC_NAMESPACE_BEGIN
namespace torch {

/// `tensor`'s elements as a span of device memory bound to `stream`'s tag (T const: read-only),
/// for umsync::launch and the copies on that stream. Throws usage_error unless the tensor is a
/// contiguous CUDA tensor of T's dtype on the stream's device. The tensor must outlive the work
/// queued with the span: for a stream other than the tensor's allocating one, lend it (loan).
template <class T, stream_handle Stream>
[[nodiscard]] device_span<T, typename Stream::tag_type> as_device_span(
    at::Tensor const& tensor, Stream const& stream, std::source_location where = std::source_location::current())
{
  int const device = detail::device_of_stream(stream.get(), where);
  detail::check_tensor<T>(tensor, detail::place::device, device, "as_device_span", where);
  detail::note_tensor_use(tensor, stream.get(), detail::access_of<T>(), where);
  return device_span<T, typename Stream::tag_type>::adopt(detail::data_of<T>(tensor),
                                                          static_cast<std::size_t>(tensor.numel()));
}

/// A pinned CPU tensor's elements as a pinned_span, for umsync::copy_async. A pageable CPU
/// tensor is refused (usage_error): an async copy of it would block the host.
template <class T>
[[nodiscard]] pinned_span<T> as_pinned_span(at::Tensor const& tensor,
                                            std::source_location where = std::source_location::current())
{
  detail::check_tensor<T>(tensor, detail::place::pinned_host, -1, "as_pinned_span", where);
  return pinned_span<T>::adopt(detail::data_of<T>(tensor), static_cast<std::size_t>(tensor.numel()));
}

/// A CPU tensor's elements (pinned or not) as a pageable_span, for umsync::copy_sync_pageable.
template <class T>
[[nodiscard]] pageable_span<T> as_pageable_span(at::Tensor const& tensor,
                                                std::source_location where = std::source_location::current())
{
  detail::check_tensor<T>(tensor, detail::place::pageable_host, -1, "as_pageable_span", where);
  return pageable_span<T>::adopt(detail::data_of<T>(tensor), static_cast<std::size_t>(tensor.numel()));
}

}  // namespace torch
UMSYNC_NAMESPACE_END
