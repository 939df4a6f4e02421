// umsync/torch/detail/tensor_check.hpp: internal. Whether a tensor can be viewed as a span of T
// (dtype, contiguity, device kind and index), and the usage_error naming the tensor when not.
#pragma once

#include <umsync/config.hpp>
#include <umsync/error.hpp>

#include <ATen/core/Tensor.h>
#include <c10/core/ScalarType.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstddef>
#include <source_location>
#include <string>
#include <type_traits>

UMSYNC_NAMESPACE_BEGIN
namespace detail {

/// The ScalarType a tensor viewed as elements of T must have.
template <class T>
struct scalar_type_of : c10::CppTypeToScalarType<T> {};
template <>
struct scalar_type_of<__half> : std::integral_constant<c10::ScalarType, c10::ScalarType::Half> {};
template <>
struct scalar_type_of<__nv_bfloat16> : std::integral_constant<c10::ScalarType, c10::ScalarType::BFloat16> {};

template <class T>
inline constexpr c10::ScalarType scalar_type_v = scalar_type_of<std::remove_cv_t<T>>::value;

/// Where a span says the tensor's memory is.
enum class place { device, pinned_host, pageable_host };

inline std::string describe_sizes(c10::IntArrayRef values)
{
  std::string text = "[";
  for (std::size_t i = 0; i < values.size(); ++i) {
    text += (i == 0 ? "" : ", ") + std::to_string(values[i]);
  }
  return text + "]";
}

/// "dtype Half, device cuda:1, sizes [4, 8], strides [1, 4]" (and pinned or pageable for CPU).
inline std::string describe_tensor(at::Tensor const& tensor)
{
  if (!tensor.defined()) {
    return "an undefined tensor";
  }
  std::string text = std::string("dtype ") + c10::toString(tensor.scalar_type()) + ", device " + tensor.device().str() +
                     ", sizes " + describe_sizes(tensor.sizes()) + ", strides " + describe_sizes(tensor.strides());
  if (tensor.device().is_cpu()) {
    text += tensor.is_pinned() ? " (pinned)" : " (pageable)";
  }
  return text;
}

[[noreturn]] inline void refuse(std::string const& call, std::string const& problem, at::Tensor const& tensor,
                                std::source_location const& where)
{
  throw usage_error("umsync::torch::", call, " at ", where, ": ", problem, "; the tensor: ", describe_tensor(tensor));
}

/// The device `stream` belongs to (cudaStreamGetDevice; the legacy and per-thread default
/// streams belong to the current device).
inline int device_of_stream(cudaStream_t stream, std::source_location const& where)
{
  int device = 0;
  if (stream == nullptr || stream == cudaStreamLegacy || stream == cudaStreamPerThread) {
    check(cudaGetDevice(&device), "cudaGetDevice", where);
  } else {
    check(cudaStreamGetDevice(stream, &device), "cudaStreamGetDevice", where);
  }
  return device;
}

/// Throws usage_error unless `tensor` can be viewed as contiguous elements of T at `expected`
/// (on CUDA device `device` for place::device).
template <class T>
void check_tensor(at::Tensor const& tensor, place expected, int device, char const* call,
                  std::source_location const& where)
{
  std::string const name = std::string(call) + "<" + c10::toString(scalar_type_v<T>) + ">";
  if (!tensor.defined()) {
    refuse(name, "the tensor is undefined", tensor, where);
  }
  if (tensor.scalar_type() != scalar_type_v<T>) {
    refuse(name,
           std::string("the tensor's dtype is ") + c10::toString(tensor.scalar_type()) + ", not " +
               c10::toString(scalar_type_v<T>) + " (the span's element type)",
           tensor, where);
  }
  if (!tensor.is_contiguous()) {
    refuse(name, "the tensor is not contiguous (a span is one run of elements): pass tensor.contiguous()", tensor,
           where);
  }
  if (expected == place::device) {
    if (!tensor.is_cuda()) {
      refuse(name, "a CUDA tensor is required, and this one is on " + tensor.device().str(), tensor, where);
    }
    if (tensor.get_device() != device) {
      refuse(name,
             "the tensor is on cuda:" + std::to_string(tensor.get_device()) + " but the stream belongs to cuda:" +
                 std::to_string(device) + " (a stream of another device than the tensor's)",
             tensor, where);
    }
  } else {
    if (!tensor.device().is_cpu()) {
      refuse(name, "a CPU tensor is required, and this one is on " + tensor.device().str(), tensor, where);
    }
    if (expected == place::pinned_host && !tensor.is_pinned()) {
      refuse(name,
             "the CPU tensor is pageable, not pinned: an async copy of it would block the host (pin it: "
             "tensor.pin_memory(), or copy it with umsync::copy_sync_pageable through as_pageable_span)",
             tensor, where);
    }
  }
}

template <class T>
T* data_of(at::Tensor const& tensor)
{
  return static_cast<T*>(tensor.data_ptr());
}

}  // namespace detail
UMSYNC_NAMESPACE_END
