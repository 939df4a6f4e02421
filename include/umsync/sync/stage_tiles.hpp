// umsync/sync/stage_tiles.hpp: the tiles of one stage (a GEMM's A and B boxes), handed out
// together by the one wait that saw their phase complete, and given back together.
//
//   umsync::bulk_fill(bar).load(a.first_use(), a_map.box_at(k, m))
//                         .load(b.first_use(), b_map.box_at(k, n)).arrive();  // one phase, A + B bytes
//   auto [a_loaded, b_loaded] = bars.wait(s, phases, a, b);   // waits once; both views loaded
//   auto a_view = std::move(a_loaded).read();
//   auto b_view = std::move(b_loaded).read();
//   ...
//   auto [a_empty, b_empty] = umsync::release_stage(umsync::whole_block{}, std::move(a_view), std::move(b_view));
//
// Waiting once per tile would wait for a later phase from the second tile on; the stage's views
// come from one wait. release_stage() gives them back with one proxy fence and one barrier
// instead of one each. Otherwise the views are the ordinary tile views of proxy.hpp.
#pragma once

#include <umsync/config.hpp>
#include <umsync/sync/proxy.hpp>

#include <cstddef>
#include <type_traits>
#include <utility>

UMSYNC_NAMESPACE_BEGIN

namespace detail {

template <std::size_t Index, class View>
struct stage_slot {
  View view;
};

template <class Indices, class... Views>
struct stage_slots;
template <std::size_t... Indices, class... Views>
struct stage_slots<std::index_sequence<Indices...>, Views...> : stage_slot<Indices, Views>... {};

template <std::size_t Index, class First, class... Rest>
struct view_at : view_at<Index - 1, Rest...> {};
template <class First, class... Rest>
struct view_at<0, First, Rest...> {
  using type = First;
};

template <std::size_t Index, class View>
__host__ __device__ constexpr View&& take_slot(stage_slot<Index, View>&& slot) noexcept
{
  return static_cast<View&&>(slot.view);
}

}  // namespace detail

/// The views of a stage's tiles, all in one step of their lives (loaded by one wait, emptied by
/// one release_stage()); taken apart with a structured binding (`auto [a, b] = ...`) or
/// std::move(stage).get<I>().
template <class... Views>
class stage_tiles : detail::stage_slots<std::index_sequence_for<Views...>, Views...> {
 public:
  static constexpr std::size_t size = sizeof...(Views);

  template <std::size_t Index>
  __device__ auto&& get() && noexcept
  {
    static_assert(Index < sizeof...(Views), "umsync: a stage has fewer tiles than this index");
    return detail::take_slot<Index>(static_cast<stage_tiles&&>(*this));
  }

  /// The one real constructor (a transaction barrier's wait over several tiles, release_stage()).
  __device__ explicit stage_tiles(Views&&... views) noexcept
      : detail::stage_slots<std::index_sequence_for<Views...>, Views...>{{static_cast<Views&&>(views)}...}
  {}
};

namespace detail {

/// The loaded views of a stage's shared tiles, after the wait that completed their phase.
template <class... T, std::size_t... N, class... Layout>
__device__ auto loaded_views(shared_tile<T, N, Layout>&... filled) noexcept
{
  return stage_tiles<tile<T, N, tile_state::loaded, Layout>...>(
      tile_access::make<T, N, tile_state::loaded, Layout>(filled.elements)...);
}

}  // namespace detail

/// Gives a stage's tiles that generic code read or wrote back to the async proxy at once, so bulk
/// copies may refill them: fence.proxy.async.shared::cta in the calling thread, then `sync` (every
/// thread that accessed them calls this), as tile::release() does for one tile.
template <class Sync, class... T, std::size_t... N, tile_state... State, class... Layout>
__device__ auto release_stage(Sync const& sync, tile<T, N, State, Layout>&&... views) noexcept
{
  static_assert(((State == tile_state::generic_read || State == tile_state::generic_written ||
                  State == tile_state::loaded) &&
                 ...),
                "umsync: release_stage() is for tiles generic code read or wrote; an async_visible tile comes back "
                "through its store_token");
  detail::fence_generic_async_shared();
  sync.sync();
  return stage_tiles<tile<T, N, tile_state::empty, Layout>...>(
      detail::tile_access::make<T, N, tile_state::empty, Layout>(detail::tile_access::data(views))...);
}

UMSYNC_NAMESPACE_END

// Structured bindings: stage_tiles is tuple-like.
template <class... Views>
struct std::tuple_size<umsync::stage_tiles<Views...>> : std::integral_constant<std::size_t, sizeof...(Views)> {};
template <std::size_t Index, class... Views>
struct std::tuple_element<Index, umsync::stage_tiles<Views...>> {
  using type = typename umsync::detail::view_at<Index, Views...>::type;
};
