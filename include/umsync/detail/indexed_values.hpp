// umsync/detail/indexed_values.hpp: values of several types, each reached by its index, built
// in order by aggregate initialization: what umsync needs of std::tuple (a launch's converted
// kernel arguments, a phase_advisor's bindings), without <tuple>'s cost in every translation
// unit that reaches launch.hpp or the umbrella (docs/compile-cost.md).
#pragma once

#include <umsync/config.hpp>

#include <cstddef>
#include <utility>

UMSYNC_NAMESPACE_BEGIN
namespace detail {

/// The value at `Index` of an indexed_values.
template <std::size_t Index, class T>
struct indexed_value {
  T value;
};

template <class Indices, class... T>
struct indexed_values;
template <std::size_t... Index, class... T>
struct indexed_values<std::index_sequence<Index...>, T...> : indexed_value<Index, T>... {};

/// One value of each of `T`, in order: `values_of<int, float> v{{1}, {2.0f}};`.
template <class... T>
using values_of = indexed_values<std::index_sequence_for<T...>, T...>;

/// The value at `Index` (its type is deduced from the one base that has that index).
template <std::size_t Index, class T>
[[nodiscard]] constexpr T& value_at(indexed_value<Index, T>& values) noexcept
{
  return values.value;
}
template <std::size_t Index, class T>
[[nodiscard]] constexpr T const& value_at(indexed_value<Index, T> const& values) noexcept
{
  return values.value;
}

}  // namespace detail
UMSYNC_NAMESPACE_END
