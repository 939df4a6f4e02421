// umsync/sync/wgmma.hpp: the warpgroup MMA (wgmma.mma_async, sm_90a) typed for its ordering: the
// accumulators cannot be read while MMAs write them, a shared tile an MMA reads comes back (to be
// released or refilled) only from the wait that saw its group complete, and an MMA reads only
// tiles the async proxy may see.
//
//   umsync::wgmma_accumulator<128> acc;                       // m64 x n128 f32, zeros, 64 a thread
//   auto mma = umsync::start_wgmma(std::move(acc));           // in flight: no element access
//   for (...) {
//     auto [a, b] = bars.wait(s, phases, a_tile[s], b_tile[s]);  // stage_tiles.hpp
//     auto group = mma.multiply(std::move(a), std::move(b));  // fence, 4 x m64n128k16, commit_group
//     auto [a_done, b_done] = std::move(group).wait<0>(mma);  // wait_group 0: the tiles come back
//     umsync::release_stage(umsync::whole_block{}, std::move(a_done), std::move(b_done));
//   }
//   auto result = std::move(mma).drain();                     // wait_group 0: readable again
//   float d = result[i];                                      // fragment layout: docs/tensor-copies.md
//
// The operands are K-major tiles of 128-byte rows with the 128-byte swizzle, as a tensor map of
// box<64, Rows> over 16-bit elements with tensor_swizzle::bytes_128 loads them: A has 64 rows, B
// has N. Their matrix descriptors come from the tile's type. Every thread of the warpgroup (four
// consecutive warps, the first a multiple of four) runs the same calls (.sync.aligned).
// wait<Pending>() keeps Pending newer groups in flight (a pipelined K loop waits with 1): the
// types cannot count the groups committed after this one, so UMSYNC_DEBUG builds do, and trap
// when the wait would leave this group running. PTX ISA 8.0, wgmma; sm_90a only (a build for
// sm_90 fails at link time naming the requirement).
#pragma once

#include <umsync/config.hpp>
#include <umsync/detail/dependent_false.hpp>
#include <umsync/sync/bulk_copy.hpp>
#include <umsync/sync/detail/ptx_wgmma.hpp>
#include <umsync/sync/proxy.hpp>
#include <umsync/sync/stage_tiles.hpp>
#include <umsync/sync/tensor_map.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <type_traits>

UMSYNC_NAMESPACE_BEGIN

template <std::size_t N>
class wgmma_in_flight;

/// One warpgroup's m64 x N f32 accumulator tile, N / 2 values a thread, zeros when made. Value i
/// of thread t (warp w = t / 32 % 4, lane l = t % 32) is row 16 w + l / 4 + 8 (i / 2 % 2), column
/// 8 (i / 4) + 2 (l % 4) + i % 2 (PTX ISA, wgmma register fragments).
template <std::size_t N>
class wgmma_accumulator {
 public:
  static_assert(N == 64 || N == 128 || N == 256, "umsync: a wgmma accumulator is m64 x N with N 64, 128 or 256");
  static constexpr std::size_t size = N / 2;

  __device__ wgmma_accumulator() noexcept
  {
    for (auto& value : values_) {
      value = 0.0F;
    }
  }
  __device__ float& operator[](std::size_t i) noexcept { return values_[i]; }
  __device__ float const& operator[](std::size_t i) const noexcept { return values_[i]; }

  /// Row and column (of the m64 x N tile) of value i in this thread.
  __device__ static unsigned row(std::size_t i) noexcept
  {
    unsigned const lane = threadIdx.x % 32U;
    return 16U * (threadIdx.x / 32U % 4U) + lane / 4U + 8U * unsigned(i / 2 % 2);
  }
  __device__ static unsigned column(std::size_t i) noexcept
  {
    return 8U * unsigned(i / 4) + 2U * (threadIdx.x % 4U) + unsigned(i % 2);
  }

 private:
  friend class wgmma_in_flight<N>;
  float values_[N / 2];
};

namespace detail {

/// The rules of a wgmma operand tile: its state (what the async proxy may see), its element
/// type, its layout. True when the MMA may be issued.
template <class T, std::size_t Rows, tile_state State, class Layout>
__host__ __device__ constexpr bool wgmma_operand_accepts() noexcept
{
  static_assert(State != tile_state::generic_written,
                "umsync: shared memory written by generic code is read by wgmma (the async proxy) only after "
                "fence.proxy.async.shared::cta in every writing thread and a barrier: call publish_to_async() on the "
                "tile first");
  static_assert(State != tile_state::empty,
                "umsync: wgmma reads a tile a barrier wait made visible (loaded, read) or one publish_to_async() "
                "handed over; an empty tile has nothing to read");
  static_assert(std::is_same_v<T, __nv_bfloat16> || std::is_same_v<T, __half>,
                "umsync: wgmma here multiplies bf16 or f16 tiles (__nv_bfloat16, __half) into f32");
  if constexpr (!is_box_layout<Layout>) {
    static_assert(dependent_false<Layout>,
                  "umsync: a wgmma operand is a K-major tile of 128-byte rows with the 128-byte swizzle: "
                  "tensor_map<T, box<64, Rows>, tensor_swizzle::bytes_128>::shared_tile_type");
    return false;
  } else {
    static_assert(Layout::swizzle == tensor_swizzle::bytes_128 && Layout::box_type::rank == 2 &&
                      Layout::box_type::extents[0] * sizeof(T) == 128,
                  "umsync: a wgmma operand is a K-major tile of 128-byte rows with the 128-byte swizzle: "
                  "tensor_map<T, box<64, Rows>, tensor_swizzle::bytes_128>::shared_tile_type");
    return State != tile_state::generic_written && State != tile_state::empty &&
           Layout::swizzle == tensor_swizzle::bytes_128;
  }
}

template <class T>
inline constexpr wgmma_input wgmma_input_of = std::is_same_v<T, __half> ? wgmma_input::f16 : wgmma_input::bf16;

/// The shared-memory matrix descriptor of a K-major, 128-byte-swizzled operand at `data` (PTX ISA,
/// wgmma matrix descriptor): start address, leading byte offset 16 (unused by this layout), stride
/// byte offset 1024 (eight 128-byte rows), swizzle mode 1 (128 bytes). Each field counts 16 bytes.
__device__ inline std::uint64_t wgmma_descriptor(void const* data) noexcept
{
  auto const address = static_cast<std::uint32_t>(__cvta_generic_to_shared(data));
  return std::uint64_t((address & 0x3FFFFU) >> 4U) | (std::uint64_t(16U >> 4U) << 16U) |
         (std::uint64_t(1024U >> 4U) << 32U) | (std::uint64_t(1) << 62U);
}

}  // namespace detail

#define UMSYNC_DETAIL_GROUP_NODISCARD                                                                             \
  [[nodiscard("umsync: a wgmma group must be waited (wait<Pending>()) before the tiles it reads are released or " \
              "refilled, and before the warpgroup exits")]]

/// The tiles a committed group of MMAs reads, held until a wait sees the group complete.
template <class... Views>
class UMSYNC_DETAIL_GROUP_NODISCARD wgmma_group {
 public:
  wgmma_group(wgmma_group const&) = delete;
  wgmma_group& operator=(wgmma_group const&) = delete;
  __device__ wgmma_group(wgmma_group&& other) noexcept : views_(static_cast<stage_tiles<Views...>&&>(other.views_))
  {
#if defined(UMSYNC_DEBUG)
    sequence_ = other.sequence_;
    other.waited_ = true;
#endif
  }
  /// Takes over another group's tiles (a pipelined K loop carries the newest group); this one must
  /// have been waited. Returns nothing: a reference to this nodiscard type would have to be used.
  __device__ void operator=(wgmma_group&& other) noexcept
  {
#if defined(UMSYNC_DEBUG)
    if (!waited_) {
      detail::report_unfinished("wgmma_group overwritten without wait()",
                                "the tiles an MMA reads are reused only after its group completes");
    }
    sequence_ = other.sequence_;
    waited_ = other.waited_;
    other.waited_ = true;
#endif
    views_ = static_cast<stage_tiles<Views...>&&>(other.views_);
  }
#if defined(UMSYNC_DEBUG)
  __device__ ~wgmma_group()
  {
    if (!waited_) {
      detail::report_unfinished("wgmma_group destroyed without wait()",
                                "the tiles an MMA reads are reused, and the warpgroup exits, only after its group "
                                "completes");
    }
  }
#endif

  /// wgmma.wait_group Pending: every group but the Pending newest of this warpgroup has completed,
  /// this one among them (debug builds check that); the tiles come back in the states they went in.
  template <int Pending, std::size_t N>
  __device__ stage_tiles<Views...> wait(wgmma_in_flight<N> const& mma) && noexcept
  {
    static_cast<void>(mma);
#if defined(UMSYNC_DEBUG)
    waited_ = true;
    mma.check_wait(sequence_, Pending);
#endif
    detail::wgmma_wait_group<Pending>();
    return static_cast<stage_tiles<Views...>&&>(views_);
  }

  /// The one real constructor (wgmma_in_flight::multiply()).
  __device__ wgmma_group(detail::transaction_key, unsigned sequence, Views&&... views) noexcept
      : views_(static_cast<Views&&>(views)...)
  {
    static_cast<void>(sequence);
#if defined(UMSYNC_DEBUG)
    sequence_ = sequence;
#endif
  }

 private:
  stage_tiles<Views...> views_;
#if defined(UMSYNC_DEBUG)
  unsigned sequence_ = 0;
  bool waited_ = false;
#endif
};

#undef UMSYNC_DETAIL_GROUP_NODISCARD

/// A warpgroup's accumulator while MMAs may write it: multiply() issues, drain() waits for all
/// and gives the values back. No element access in between.
template <std::size_t N>
class [[nodiscard("umsync: MMAs in flight are drained (drain()) before the accumulators are read and before the "
                  "warpgroup exits")]] wgmma_in_flight
{
 public:
  wgmma_in_flight(wgmma_in_flight const&) = delete;
  wgmma_in_flight& operator=(wgmma_in_flight const&) = delete;
  wgmma_in_flight(wgmma_in_flight &&) noexcept = default;

  /// D += A * B^T over the tiles' 64-wide K: wgmma.fence, four m64nNk16 MMAs, commit_group. The
  /// tiles move into the returned group, which gives them back from its wait.
  template <class T, std::size_t ARows, tile_state AState, class ALayout, std::size_t BRows, tile_state BState,
            class BLayout>
  __device__ auto multiply(tile<T, ARows, AState, ALayout> && a, tile<T, BRows, BState, BLayout> && b) noexcept
  {
    using a_view = tile<T, ARows, AState, ALayout>;
    using b_view = tile<T, BRows, BState, BLayout>;
    if constexpr (detail::wgmma_operand_accepts<T, ARows, AState, ALayout>() &&
                  detail::wgmma_operand_accepts<T, BRows, BState, BLayout>()) {
      static_assert(ALayout::box_type::extents[1] == 64, "umsync: a wgmma A tile has 64 rows (m64)");
      static_assert(BLayout::box_type::extents[1] == N,
                    "umsync: a wgmma B tile has as many rows as the accumulator has columns (N)");
      std::uint64_t const a_descriptor = detail::wgmma_descriptor(detail::tile_access::data(a));
      std::uint64_t const b_descriptor = detail::wgmma_descriptor(detail::tile_access::data(b));
      for (auto& value : values_) {
        detail::wgmma_fence_operand(value);
      }
      detail::wgmma_fence();
#pragma unroll
      for (int k = 0; k < 4; ++k) {  // 64 elements of K, 16 an MMA: 32 bytes, 2 descriptor units
        detail::wgmma_m64k16<N, detail::wgmma_input_of<T>>::issue(values_, a_descriptor + 2U * unsigned(k),
                                                                  b_descriptor + 2U * unsigned(k), 1);
      }
      detail::wgmma_commit_group();
      for (auto& value : values_) {
        detail::wgmma_fence_operand(value);
      }
    }
#if defined(UMSYNC_DEBUG)
    unsigned const sequence = committed_++;
#else
    unsigned const sequence = 0;
#endif
    return wgmma_group<a_view, b_view>(detail::transaction_access::key(), sequence, static_cast<a_view&&>(a),
                                       static_cast<b_view&&>(b));
  }

  /// wgmma.wait_group 0, and the accumulator, readable again.
  __device__ wgmma_accumulator<N> drain()&& noexcept
  {
    detail::wgmma_wait_group<0>();
    wgmma_accumulator<N> result;
    for (std::size_t i = 0; i < N / 2; ++i) {
      detail::wgmma_fence_operand(values_[i]);
      result.values_[i] = values_[i];
    }
    return result;
  }

  /// Declared only so that reading an accumulator in flight fails with the rule's message.
  template <class Index>
  __device__ float operator[](Index) const noexcept
  {
    static_assert(detail::dependent_false<Index>,
                  "umsync: wgmma accumulators are read only after drain() (wgmma.wait_group 0): the MMAs in flight "
                  "still write them");
    return 0.0F;
  }

  /// The one real constructor (start_wgmma()).
  __device__ wgmma_in_flight(detail::transaction_key, wgmma_accumulator<N> && accumulator) noexcept
  {
    for (std::size_t i = 0; i < N / 2; ++i) {
      values_[i] = accumulator.values_[i];
    }
  }

#if defined(UMSYNC_DEBUG)
  /// UMSYNC_DEBUG: wait_group Pending completes group `sequence` only if Pending groups or more
  /// were committed after it.
  __device__ void check_wait(unsigned sequence, int pending) const noexcept
  {
    unsigned const newer = committed_ - 1U - sequence;
    if (newer >= unsigned(pending)) {
      return;
    }
    bool const prints = detail::cluster_trap_prints();
    if (prints) {
      std::printf("umsync: wgmma wait<%d> in block (%u,%u,%u) thread (%u,%u,%u) leaves the group that reads these "
                  "tiles in flight (%u groups were committed after it); wait with at most %u\n",
                  pending, blockIdx.x, blockIdx.y, blockIdx.z, threadIdx.x, threadIdx.y, threadIdx.z, newer, newer);
    }
    detail::cluster_trap(prints);
  }
#endif

 private:
  float values_[N / 2];
#if defined(UMSYNC_DEBUG)
  unsigned committed_ = 0;
#endif
};

/// Hands a warpgroup's accumulator to the MMAs: no element access until drain().
template <std::size_t N>
__device__ wgmma_in_flight<N> start_wgmma(wgmma_accumulator<N>&& accumulator) noexcept
{
  return wgmma_in_flight<N>(detail::transaction_access::key(), static_cast<wgmma_accumulator<N>&&>(accumulator));
}

namespace detail {
/// setmaxnreg.{inc,dec}.sync.aligned.u32 Count (sm_90a; PTX ISA 8.0).
template <bool Increase, unsigned Count>
__device__ void set_max_registers() noexcept
{
  static_assert(Count >= 24 && Count <= 256 && Count % 8 == 0,
                "umsync: setmaxnreg takes 24 to 256 registers a thread, a multiple of 8");
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  if constexpr (Increase) {
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(Count));
  } else {
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(Count));
  }
#elif defined(__CUDA_ARCH__)
  __umsync_wgmma_needs_sm_90a_build_with_arch_sm_90a();
#endif
}
}  // namespace detail

/// setmaxnreg: the calling warpgroup's register budget raised (a consumer) or lowered (a producer)
/// to Count a thread, so consumer warpgroups can hold larger accumulators (sm_90a).
template <unsigned Count>
__device__ void increase_warpgroup_registers() noexcept
{
  detail::set_max_registers<true, Count>();
}
template <unsigned Count>
__device__ void decrease_warpgroup_registers() noexcept
{
  detail::set_max_registers<false, Count>();
}

UMSYNC_NAMESPACE_END
