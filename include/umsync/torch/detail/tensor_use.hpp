// umsync/torch/detail/tensor_use.hpp: internal. A tensor's use on a stream, told to the
// UMSYNC_DEBUG ordering checker (nothing in release builds).
#pragma once

#include <umsync/config.hpp>
#include <umsync/detail/debug/checker_hooks.hpp>
#include <umsync/torch/detail/storage_registry.hpp>

#include <ATen/core/Tensor.h>
#include <cuda_runtime_api.h>

#include <source_location>
#include <type_traits>

UMSYNC_NAMESPACE_BEGIN
namespace detail {

/// UMSYNC_DEBUG: `stream` uses `tensor`'s memory (read or write) at `where`.
inline void note_tensor_use(at::Tensor const& tensor, cudaStream_t stream, debug::access kind,
                            std::source_location const& where, bool kept_alive = false)
{
#if defined(UMSYNC_DEBUG)
  if (!tensor.defined() || !tensor.is_cuda() || tensor.numel() == 0) {
    return;
  }
  storage_registry::instance().seen(tensor, kept_alive);
  debug::note_access(tensor.data_ptr(), tensor.nbytes(), stream, kind, where);
#else
  static_cast<void>(tensor);
  static_cast<void>(stream);
  static_cast<void>(kind);
  static_cast<void>(where);
  static_cast<void>(kept_alive);
#endif
}

template <class T>
constexpr debug::access access_of() noexcept
{
  return std::is_const_v<T> ? debug::access::read : debug::access::write;
}

}  // namespace detail
UMSYNC_NAMESPACE_END
