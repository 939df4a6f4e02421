// Tests of umsync/detail/indexed_values.hpp: values reached by index, in order, of repeated types.
#include <umsync/detail/indexed_values.hpp>

#include <doctest/doctest.h>

#include <random>
#include <type_traits>

namespace detail = umsync::detail;

static_assert(
    std::is_same_v<decltype(detail::value_at<1>(std::declval<detail::values_of<int, float, int>&>())), float&>);
static_assert(std::is_same_v<decltype(detail::value_at<2>(std::declval<detail::values_of<int, float, int> const&>())),
                             int const&>);
static_assert(detail::value_at<0>(detail::values_of<int, char>{{7}, {'x'}}) == 7);

TEST_CASE("indexed values keep each value at its index, repeated types too")
{
  std::mt19937 random(std::random_device{}());
  int const first = static_cast<int>(random());
  int const third = static_cast<int>(random());
  float const second = static_cast<float>(random() % 1000) / 8.0F;
  detail::values_of<int, float, int> values{{first}, {second}, {third}};
  CHECK(detail::value_at<0>(values) == first);
  CHECK(detail::value_at<1>(values) == second);
  CHECK(detail::value_at<2>(values) == third);
  detail::value_at<2>(values) = first;  // written through the reference, the others untouched
  CHECK(detail::value_at<2>(values) == first);
  CHECK(detail::value_at<0>(values) == first);
  CHECK(detail::value_at<1>(values) == second);
}
