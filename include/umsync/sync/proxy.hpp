// umsync/sync/proxy.hpp: shared-memory tiles whose type says which proxy may touch them next.
// Generic code (ordinary loads and stores) and the async proxy (bulk copies, TMA) see shared
// memory through different proxies; a barrier alone does not order one after the other
// (PTX ISA, memory consistency model, proxies). A tile view carries its state, and each
// handoff between the proxies is a member that issues fence.proxy.async.shared::cta first.
//
//   __shared__ umsync::shared_tile<float, 1024> out_tile;
//   auto out = out_tile.first_use().write();          // tile<..., generic_written>
//   out[threadIdx.x] = value;                         // generic stores
//   auto visible = std::move(out).publish_to_async(); // fence in every writer, then __syncthreads()
//   auto token = umsync::bulk_store(dst, std::move(visible), threadIdx.x == 0);  // bulk_copy.hpp
//   auto again = std::move(token).wait();             // tile<..., empty>: writable again
//
//   auto stage = bar.wait(phase, in_tile[s]).read();   // tile<..., generic_read>
//   sum += stage[threadIdx.x];
//   auto refillable = std::move(stage).release();     // fence, then __syncthreads(): tile<..., empty>
//
// In a loop the stage index and the phase are run-time values; the states change at compile
// time inside one iteration, and a view carried to the next iteration keeps one state
// (docs/async-copies.md). What a view cannot see: accesses through data() or through another
// pointer to the same memory, and whether first_use() is true. UMSYNC_DEBUG builds trap on a view
// used after it was moved from or its state changed (the step that took it owns the tile).
#pragma once

#include <umsync/config.hpp>
#include <umsync/detail/dependent_false.hpp>
#include <umsync/sync/cluster.hpp>

#include <cuda/ptx>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <type_traits>

UMSYNC_NAMESPACE_BEGIN

/// Who may access a tile next.
enum class tile_state {
  empty,            ///< no access outstanding: a bulk copy may fill it, generic code may write it
  loaded,           ///< a bulk copy filled it and a barrier wait made the data visible
  generic_read,     ///< generic code read it: a bulk copy may refill it only after release()
  generic_written,  ///< generic code wrote it: a bulk store may read it only after publish_to_async()
  async_visible,    ///< fenced and handed over: a bulk store may read it; generic code may not
};

/// The barrier the proxy handoffs run after their fence: the whole block (__syncthreads()).
/// Any type with a sync() member (umsync::named_barrier) can stand in for it.
struct whole_block {
  __device__ void sync() const noexcept { __syncthreads(); }
};

/// How a tile's elements sit in shared memory: in order (a bulk copy's tile). A layout names the
/// alignment its storage needs and where element `index` lies; tensor_map.hpp adds the swizzled
/// boxes of tensor copies.
struct linear_layout {
  static constexpr std::size_t alignment = 128;
  template <class T>
  __host__ __device__ static constexpr std::size_t offset(std::size_t index) noexcept
  {
    return index;
  }
};

template <class T, std::size_t N, tile_state State, class Layout = linear_layout>
class tile;

namespace detail {

template <class View>
inline constexpr bool is_tile_view = false;
template <class T, std::size_t N, tile_state State, class Layout>
inline constexpr bool is_tile_view<tile<T, N, State, Layout>> = true;

/// Made only by umsync's tile transitions and by the barrier and copy types that hand tiles out.
class tile_key {
  constexpr tile_key() noexcept = default;
  template <class T, std::size_t N, tile_state State, class Layout>
  friend class umsync::tile;
  friend struct tile_access;
};

#if defined(UMSYNC_DEBUG)
/// UMSYNC_DEBUG: a view whose tile went on to another step (it was moved from, or a state change
/// took it) is used again: the step that took it owns the tile now.
__device__ inline void check_tile_live(void const* data) noexcept
{
  if (data != nullptr) {
    return;
  }
  bool const prints = cluster_trap_prints();
  if (prints) {
    std::printf("umsync: a tile view is used in block (%u,%u,%u) thread (%u,%u,%u) after it was moved into another "
                "step (std::move into a copy, a state change, an MMA group): that step owns the tile now; use the "
                "view it gives back\n",
                blockIdx.x, blockIdx.y, blockIdx.z, threadIdx.x, threadIdx.y, threadIdx.z);
  }
  cluster_trap(prints);
}
#endif

/// The one door through which transaction_barrier.hpp and the copy headers make views.
struct tile_access {
  template <class T, std::size_t N, tile_state State, class Layout = linear_layout>
  __device__ static tile<T, N, State, Layout> make(T* data) noexcept
  {
    return tile<T, N, State, Layout>(tile_key{}, data);
  }
  template <class T, std::size_t N, tile_state State, class Layout>
  __device__ static T* data(tile<T, N, State, Layout> const& view) noexcept
  {
#if defined(UMSYNC_DEBUG)
    check_tile_live(view.data_);
#endif
    return view.data_;
  }
};

/// fence.proxy.async.shared::cta: orders this thread's generic accesses to shared memory before
/// later async-proxy accesses (and the reverse).
__device__ inline void fence_generic_async_shared() noexcept { cuda::ptx::fence_proxy_async(cuda::ptx::space_shared); }

}  // namespace detail

/// Storage for N elements of T in shared memory, aligned and sized for bulk copies (16-byte
/// aligned address, a multiple of 16 bytes: PTX ISA, cp.async.bulk), laid out as `Layout` says
/// (a tensor map's box: tensor_map<...>::shared_tile_type). Declare it __shared__.
template <class T, std::size_t N, class Layout = linear_layout>
struct shared_tile {
  static_assert(std::is_trivially_copyable_v<T>, "umsync: a shared_tile holds trivially copyable elements only");
  static_assert(N > 0, "umsync: a shared_tile holds at least one element");
  static_assert(N * sizeof(T) % 16 == 0,
                "umsync: a bulk copy moves a multiple of 16 bytes: a shared_tile's size (N * sizeof(T)) must be a "
                "multiple of 16");
  static constexpr std::size_t size = N;
  static constexpr std::size_t bytes = N * sizeof(T);
  using layout = Layout;

  alignas(Layout::alignment) T elements[N];

  /// The tile as no thread has accessed it yet: since the kernel started, or since a barrier
  /// that every thread passed after its last use. A promise the types cannot check.
  __device__ tile<T, N, tile_state::empty, Layout> first_use() noexcept
  {
    return detail::tile_access::make<T, N, tile_state::empty, Layout>(elements);
  }
};

/// A view of a shared_tile in one state. It is moved, never copied, into the step that changes
/// its state; the members that make no sense in a state say so when used.
template <class T, std::size_t N, tile_state State, class Layout>
class tile {
 public:
  static constexpr std::size_t size = N;
  static constexpr std::size_t bytes = N * sizeof(T);
  static constexpr tile_state state = State;
  using layout = Layout;

  /// Declared only so that a view made any other way, or copied, fails with the rule's message.
  template <class... Args>
  __device__ tile(Args&&...) noexcept  // NOLINT: exists to reject with a message
  {
    if constexpr ((std::is_same_v<std::remove_cvref_t<Args>, tile> || ...)) {
      static_assert(detail::dependent_false<Args...>,
                    "umsync: a tile view cannot be copied: its state changes as it is used; move it "
                    "(std::move) into the next step");
    } else if constexpr ((detail::is_tile_view<std::remove_cvref_t<Args>> || ...)) {
      static_assert(detail::dependent_false<Args...>,
                    "umsync: a tile view keeps the state it was made in; a step that changes the state (read(), "
                    "write(), publish_to_async(), release()) returns a new view: keep that one (auto next = "
                    "std::move(view).release();) instead of assigning it to a view of another state");
    } else {
      static_assert(detail::dependent_false<Args...>,
                    "umsync: a tile view comes only from shared_tile::first_use(), a transaction barrier wait, "
                    "release() or a waited store_token");
    }
  }
  __device__ tile(tile const& other) noexcept  // NOLINT: exists to reject with a message
  {
    static_cast<void>(other);
    static_assert(detail::dependent_false<T>,
                  "umsync: a tile view cannot be copied: its state changes as it is used; move it (std::move) into "
                  "the next step");
  }
#if defined(UMSYNC_DEBUG)
  // Debug builds empty the view moved from, so that a later use of it traps (check_tile_live).
  __device__ tile(tile&& other) noexcept : data_(other.data_) { other.data_ = nullptr; }
  __device__ tile& operator=(tile&& other) noexcept
  {
    data_ = other.data_;
    other.data_ = nullptr;
    return *this;
  }
#else
  tile(tile&&) noexcept = default;
  tile& operator=(tile&&) noexcept = default;
#endif
  tile& operator=(tile const&) = delete;

  /// Elements: read-write once written, read-only once read; not reachable in the other states.
  /// `i` counts elements in order (a box's first extent fastest), whatever the layout's swizzle.
  template <class Index>
  __device__ decltype(auto) operator[](Index i) const noexcept
  {
#if defined(UMSYNC_DEBUG)
    detail::check_tile_live(data_);
#endif
    if constexpr (State == tile_state::generic_written) {
      return static_cast<T&>(data_[Layout::template offset<T>(static_cast<std::size_t>(i))]);
    } else if constexpr (State == tile_state::generic_read) {
      return static_cast<T const&>(data_[Layout::template offset<T>(static_cast<std::size_t>(i))]);
    } else {
      static_assert(detail::dependent_false<Index>,
                    "umsync: a tile's elements are accessed only after read() or write(): an empty tile may be "
                    "filled by a bulk copy at any time, and an async_visible one belongs to a bulk store");
      return static_cast<T const&>(data_[i]);
    }
  }

  /// Generic code will read the tile (empty tiles have nothing to read).
  __device__ tile<T, N, tile_state::generic_read, Layout> read() && noexcept
  {
    static_assert(State == tile_state::loaded || State == tile_state::generic_written,
                  "umsync: read() is for a tile a barrier wait made visible (loaded) or one this block wrote");
    return next<tile_state::generic_read>();
  }

  /// Generic code will write (and may read) the tile.
  __device__ tile<T, N, tile_state::generic_written, Layout> write() && noexcept
  {
    static_assert(State != tile_state::async_visible,
                  "umsync: a tile handed to a bulk store is written again only after its store_token has been waited");
    return next<tile_state::generic_written>();
  }

  /// Hands the tile from generic code to a bulk store: fence.proxy.async.shared::cta in the
  /// calling thread, then `sync` (every thread that wrote calls this). PTX ISA: generic-proxy
  /// writes are seen by the async proxy only after a proxy fence.
  template <class Sync = whole_block>
  __device__ tile<T, N, tile_state::async_visible, Layout> publish_to_async(Sync const& sync = {}) && noexcept
  {
    static_assert(State == tile_state::generic_written || State == tile_state::loaded,
                  "umsync: publish_to_async() hands over a tile that generic code wrote (write()) or a loaded one");
    detail::fence_generic_async_shared();
    sync.sync();
    return next<tile_state::async_visible>();
  }

  /// Gives a tile that generic code read or wrote back to the async proxy, so a bulk copy may
  /// refill it: fence.proxy.async.shared::cta in the calling thread, then `sync` (every thread
  /// that accessed it calls this). deepseek-ai/DeepEP #642: without the fence a refill may
  /// overtake the reads.
  template <class Sync = whole_block>
  __device__ tile<T, N, tile_state::empty, Layout> release(Sync const& sync = {}) && noexcept
  {
    static_assert(State == tile_state::generic_read || State == tile_state::generic_written ||
                      State == tile_state::loaded,
                  "umsync: release() is for a tile generic code read or wrote; an async_visible tile comes back "
                  "through its store_token");
    detail::fence_generic_async_shared();
    sync.sync();
    return next<tile_state::empty>();
  }

  /// The first element's address. What is done with it is beyond the view's guarantees.
  __device__ T* data() const noexcept { return data_; }

 private:
  __device__ tile(detail::tile_key, T* data) noexcept : data_(data) {}
  template <tile_state Next>
  __device__ tile<T, N, Next, Layout> next() noexcept
  {
#if defined(UMSYNC_DEBUG)
    detail::check_tile_live(data_);
    T* const data = data_;
    data_ = nullptr;  // the state change takes the tile: a later use of this view traps
    return tile<T, N, Next, Layout>(detail::tile_key{}, data);
#else
    return tile<T, N, Next, Layout>(detail::tile_key{}, data_);
#endif
  }
  template <class, std::size_t, tile_state, class>
  friend class tile;
  friend struct detail::tile_access;
  T* data_;
};

UMSYNC_NAMESPACE_END
