// umsync/detail/dependent_false.hpp: a false that waits for instantiation, so a
// static_assert in a template fires only where the user's mistake is.
#pragma once

#include <umsync/config.hpp>

UMSYNC_NAMESPACE_BEGIN
namespace detail {

template <class...>
inline constexpr bool dependent_false = false;

}  // namespace detail
UMSYNC_NAMESPACE_END
