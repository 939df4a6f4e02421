// Compile-time properties of umsync/stream_edge.hpp (host only): the one name deduces its tags
// and its timing from the streams by class template deduction (no alias template, so clang
// before 19 deduces it too), and the deprecated aliases name the same types.
#include <doctest/doctest.h>
#include <umsync/stream_edge.hpp>

#include <type_traits>
#include <utility>

namespace {
struct compute {};
struct copy {};

using immediate = umsync::stream_edge<compute, copy>;
using deferred = umsync::stream_edge<compute, copy, umsync::edge_timing::deferred>;

template <class... Args>
using deduced = decltype(umsync::stream_edge(std::declval<Args>()...));

using owning_compute = umsync::stream<compute> const&;
using owning_copy = umsync::stream<copy> const&;
using view_compute = umsync::stream_view<compute>;
using view_copy = umsync::stream_view<copy>;
using deferred_tag = decltype(umsync::deferred) const&;
}  // namespace

// Without a timing argument an edge is immediate: from streams, views and a mix of the two.
static_assert(std::is_same_v<deduced<owning_compute, owning_copy>, immediate>);
static_assert(std::is_same_v<deduced<view_compute, view_copy>, immediate>);
static_assert(std::is_same_v<deduced<owning_compute, view_copy>, immediate>);
static_assert(std::is_same_v<deduced<view_compute, owning_copy>, immediate>);
// With umsync::deferred it is deferred, from the same arguments.
static_assert(std::is_same_v<deduced<owning_compute, owning_copy, deferred_tag>, deferred>);
static_assert(std::is_same_v<deduced<view_compute, view_copy, deferred_tag>, deferred>);
static_assert(std::is_same_v<deduced<owning_compute, view_copy, deferred_tag>, deferred>);
static_assert(std::is_same_v<deduced<view_compute, owning_copy, deferred_tag>, deferred>);
// The type written out: a deferred edge is made with or without the argument; an immediate
// edge does not take the deferred argument.
static_assert(std::is_constructible_v<deferred, view_compute, view_copy>);
static_assert(std::is_constructible_v<deferred, owning_compute, owning_copy, deferred_tag>);
static_assert(!std::is_constructible_v<immediate, owning_compute, owning_copy, deferred_tag>);
// An edge runs from its first stream to its second: the tags are not swapped.
static_assert(!std::is_same_v<deduced<owning_copy, owning_compute>, immediate>);
// An edge owns its event: move-only.
static_assert(!std::is_copy_constructible_v<immediate>);
static_assert(std::is_move_constructible_v<immediate>);

// The deprecated names (removed in 0.3.0) are the same types, so code that names them still
// passes its edges to code that names stream_edge.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
static_assert(std::is_same_v<umsync::stream_dependency<compute, copy>, immediate>);
static_assert(std::is_same_v<umsync::deferred_edge<compute, copy>, deferred>);
#pragma GCC diagnostic pop

TEST_CASE("stream_edge: one name deduces both timings (the static_asserts above)")
{
  CHECK(std::is_same_v<deduced<owning_compute, owning_copy, deferred_tag>, deferred>);
}
