// umsync/torch/debug_checker.hpp: what PyTorch's own ops do with tensors, told to the
// UMSYNC_DEBUG ordering checker, and a reset for tests. Nothing in release builds.
//
//   umsync::torch::note_read(x, home);          // torch's op read x on home
//   umsync::torch::reset_debug_checker();
//
// UMSYNC_DEBUG builds note each tensor use to the ordering checker (detail/debug/), so an
// unordered use of a tensor on two streams throws ordering_error naming both call sites.
#pragma once

#include <umsync/config.hpp>
#include <umsync/detail/debug/checker_hooks.hpp>
#include <umsync/stream_view.hpp>
#include <umsync/torch/detail/storage_registry.hpp>
#include <umsync/torch/detail/tensor_use.hpp>

#include <ATen/core/Tensor.h>

#include <source_location>

UMSYNC_NAMESPACE_BEGIN
namespace torch {

/// UMSYNC_DEBUG: `stream` reads (writes) `tensor` at `where`, through PyTorch's own ops, which the
/// checker does not see otherwise. Nothing in release builds.
template <stream_handle Stream>
void note_read(at::Tensor const& tensor, Stream const& stream,
               std::source_location where = std::source_location::current())
{
  detail::note_tensor_use(tensor, stream.get(), detail::debug::access::read, where);
}
template <stream_handle Stream>
void note_write(at::Tensor const& tensor, Stream const& stream,
                std::source_location where = std::source_location::current())
{
  detail::note_tensor_use(tensor, stream.get(), detail::debug::access::write, where);
}

/// UMSYNC_DEBUG: forgets everything the ordering checker knows (tests that start afresh).
inline void reset_debug_checker()
{
#if defined(UMSYNC_DEBUG)
  detail::debug::ordering_checker::instance().reset();
  detail::storage_registry::instance().reset();
#endif
}

}  // namespace torch
UMSYNC_NAMESPACE_END
