// umsync/detail/debug/access.hpp: what a use of memory does, as the ordering checker sees it.
#pragma once

#include <umsync/config.hpp>

UMSYNC_NAMESPACE_BEGIN
namespace detail::debug {

enum class access { read, write, free };

}  // namespace detail::debug
UMSYNC_NAMESPACE_END
