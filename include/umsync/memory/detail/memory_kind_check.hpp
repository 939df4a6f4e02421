// umsync/memory/detail/memory_kind_check.hpp: the UMSYNC_DEBUG check that memory is the kind its span
// says it is.
//
// A memory_span's kind is a promise (memory_span::adopt, a type's umsync_memory): nothing can
// check it at compile time. Where a span is consumed (launch, the copies), UMSYNC_DEBUG builds
// ask the driver about memory umsync did not allocate itself and refuse, with usage_error,
// pageable host memory said to be pinned, device or managed: an async copy of it would block
// the host, and a kernel cannot read it unless the device reads pageable memory (one
// cudaPointerGetAttributes call: detail::debug::check_not_pageable). Release builds do nothing
// here.
#pragma once

#include <umsync/config.hpp>
#include <umsync/detail/debug/checker_hooks.hpp>
#include <umsync/memory/memory_span.hpp>

#include <source_location>

UMSYNC_NAMESPACE_BEGIN
namespace detail {

/// The name of a kind, as the debug check's message gives it.
template <memory_kind Kind>
inline constexpr char const* memory_kind_name = Kind == memory_kind::device        ? "device"
                                                : Kind == memory_kind::pinned_host ? "pinned host"
                                                : Kind == memory_kind::managed     ? "managed"
                                                                                   : "pageable host";

/// UMSYNC_DEBUG builds: throws usage_error when `span`, said to be device, pinned or managed
/// memory, is pageable host memory that `reader` cannot use. `operation` names the call
/// ("umsync::launch").
template <class T, memory_kind Kind, class Tag>
void debug_check_memory_kind(memory_span<T, Kind, Tag> const& span, debug::consumer reader, char const* operation,
                             std::source_location const& where) noexcept(!debug_build)
{
  if constexpr (debug_build && Kind != memory_kind::pageable_host) {
    if (!span.empty()) {
      debug::check_not_pageable(span.data(), memory_kind_name<Kind>, reader, operation, where);
    }
  } else {
    static_cast<void>(span);
    static_cast<void>(reader);
    static_cast<void>(operation);
    static_cast<void>(where);
  }
}

}  // namespace detail
UMSYNC_NAMESPACE_END
