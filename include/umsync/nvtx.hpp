// umsync/nvtx.hpp: NVTX ranges of your own in umsync's domain ("umsync"), so that a profiler
// shows them on the row of the ranges umsync opens for transfers, edges, phases and captures,
// which then nest inside them (docs/nvtx.md). Without UMSYNC_NVTX the type is empty and its
// calls compile to nothing.
//
//   {
//     umsync::nvtx_scope const step("training step");  // closed at the end of the block
//     ...
//   }
#pragma once

#include <umsync/config.hpp>
#include <umsync/detail/nvtx.hpp>

UMSYNC_NAMESPACE_BEGIN

/// An NVTX range named at run time, open from construction to destruction on the constructing
/// thread. The tool reads the name when the range opens (NVTX passes it by pointer, once).
class [[nodiscard]] nvtx_scope {
 public:
  explicit nvtx_scope(char const* name) noexcept { detail::nvtx_push(name); }
  nvtx_scope(nvtx_scope const&) = delete;
  nvtx_scope& operator=(nvtx_scope const&) = delete;
  ~nvtx_scope() { detail::nvtx_pop(); }
};

UMSYNC_NAMESPACE_END
