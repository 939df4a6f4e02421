// umsync/detail/type_name.hpp: a type's name as the compiler spells it, at compile time, for
// messages (a resource's name in bad_alloc) and NVTX range names (detail/nvtx.hpp).
#pragma once

#include <umsync/config.hpp>

#include <umsync/error.hpp>

#include <cstddef>

UMSYNC_NAMESPACE_BEGIN
namespace detail {

/// T as the compiler spells it: g++ and nvcc give "... [with T = app::slot<3>]". The signature
/// names no typedef (g++ would list one after T as "; name = ..."), so nothing follows T in the
/// brackets. Another compiler's format gives the whole signature, which still names T.
template <class T>
constexpr text_view pretty_type_name() noexcept
{
  text_view const function = __PRETTY_FUNCTION__;
  std::size_t const start = function.find("T = ");
  std::size_t const end = function.rfind(']');
  if (start == function.npos || end == function.npos || end < start) {
    return function;
  }
  return function.substr(start + 4, end - start - 4);
}

/// pretty_type_name<T>(), computed at compile time: called where a constant is not required,
/// the search would run at every call.
template <class T>
inline constexpr text_view pretty_type_name_v = pretty_type_name<T>();

}  // namespace detail
UMSYNC_NAMESPACE_END
