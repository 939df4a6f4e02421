// umsync/sync/tensor_map.hpp: tensor maps (CUtensorMap) whose element type, box and swizzle are
// part of their type, so the shared tile a tensor copy fills, and the bytes its barrier
// expects, follow from the map at compile time.
//
//   using a_map = umsync::tensor_map<__nv_bfloat16 const, umsync::box<64, 128>,  // K x M box,
//                                    umsync::tensor_swizzle::bytes_128>;         // first extent fastest
//   auto const map = a_map::encode(a, {k, m});               // host: cuTensorMapEncodeTiled, checked
//   kernel<<<grid, block>>>(map);                            // by value
//
//   __global__ void kernel(a_map const __grid_constant__ map)
//   {
//     __shared__ a_map::shared_tile_type a_tile;            // 1024-byte aligned for the swizzle
//     ...
//     umsync::bulk_fill(bar).load(a_tile.first_use(), map.box_at(k0, m0)).arrive();  // bulk_copy.hpp
//     auto a = bar.wait(phase, a_tile).read();              // a[i]: element i of the box, unswizzled
//   }
//
// Extents, boxes and coordinates count the first (contiguous) dimension first, as the driver and
// the PTX ISA do. The host side checks what cuTensorMapEncodeTiled requires before calling it and
// throws umsync::invalid_argument naming the rule; the box's own rules are static_asserts. TMA
// reads the map from a __grid_constant__ parameter, constant or global memory, never from a copy
// in local memory: UMSYNC_DEBUG builds trap on a map that is neither (__isGridConstant,
// __isGlobal). A map of `T const` elements loads only; tensor_store (bulk_copy.hpp) needs `T`.
#pragma once

#include <umsync/config.hpp>
#include <umsync/detail/driver_entry.hpp>
#include <umsync/error.hpp>
#include <umsync/pdl.hpp>
#include <umsync/sync/box_layout.hpp>
#include <umsync/sync/cluster.hpp>
#include <umsync/sync/multicast.hpp>
#include <umsync/sync/proxy.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <source_location>
#include <type_traits>

// The 16-bit floating-point types of <cuda_fp16.h> and <cuda_bf16.h>, named without including
// those headers (only their identity is needed to choose the map's data type).
struct __half;
struct __nv_bfloat16;

UMSYNC_NAMESPACE_BEGIN

/// Where TMA fetches from DRAM into L2 in larger pieces (CUtensorMapL2promotion's values).
enum class tensor_l2_promotion : unsigned { none = 0, bytes_64 = 1, bytes_128 = 2, bytes_256 = 3 };

namespace detail {

/// CUtensorMapDataType for an element type, by size where the type is an integer.
template <class T>
constexpr unsigned tensor_data_type() noexcept
{
  if constexpr (std::is_same_v<T, __half>) {
    return 6;  // FLOAT16
  } else if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    return 9;  // BFLOAT16
  } else if constexpr (std::is_same_v<T, float>) {
    return 7;  // FLOAT32
  } else if constexpr (std::is_same_v<T, double>) {
    return 8;  // FLOAT64
  } else if constexpr (std::is_integral_v<T> && sizeof(T) == 4) {
    return std::is_signed_v<T> ? 3U : 2U;  // INT32, UINT32
  } else if constexpr (std::is_integral_v<T> && sizeof(T) == 8) {
    return std::is_signed_v<T> ? 5U : 4U;  // INT64, UINT64
  } else if constexpr (sizeof(T) == 1) {
    return 0;  // UINT8: any byte-sized element
  } else if constexpr (sizeof(T) == 2) {
    return 1;  // UINT16: any other 2-byte element
  } else {
    return 2 + (sizeof(T) == 8 ? 2U : 0U);  // UINT32 or UINT64 by size
  }
}

/// The driver's 128-byte, 64-byte-aligned CUtensorMap (checked against <cuda.h> by
/// test/detail/driver_entry_host_test.cpp).
struct alignas(64) tensor_map_words {
  std::uint64_t opaque[16];
};

/// cuTensorMapEncodeTiled's signature, with the driver's enumerations as unsigned.
using encode_tiled_function = driver_result (*)(tensor_map_words*, unsigned, unsigned, void*, std::uint64_t const*,
                                                std::uint64_t const*, std::uint32_t const*, std::uint32_t const*,
                                                unsigned, unsigned, unsigned, unsigned);

inline constexpr std::uint64_t max_tensor_extent = std::uint64_t(1) << 32U;
inline constexpr std::uint64_t max_tensor_stride_bytes = std::uint64_t(1) << 40U;

/// UMSYNC_DEBUG: TMA reads a map only from param, const or global memory.
__device__ inline bool tensor_map_readable_by_tma(void const* map) noexcept
{
#if defined(__CUDA_ARCH__)
  return __isGridConstant(map) || __isGlobal(map) || __isConstant(map);
#else
  static_cast<void>(map);
  return true;
#endif
}

}  // namespace detail

template <class T, class Box, tensor_swizzle Swizzle>
class tensor_map;

/// One box of a tensor map at coordinates (box_at()): what a tensor load reads or a tensor
/// store writes. A view of the map; it lives as long as the expression that uses it.
template <class Map>
class tensor_box {
 public:
  using map_type = Map;
  __device__ Map const& map() const noexcept { return *map_; }
  __device__ std::int32_t const (&coordinates() const noexcept)[Map::rank] { return coordinates_; }

 private:
  template <class, class, tensor_swizzle>
  friend class tensor_map;
  __device__ tensor_box(Map const* map) noexcept : map_(map) {}
  Map const* map_;
  std::int32_t coordinates_[Map::rank];
};

/// A tensor map over global memory of `T` (`T const`: loads only), moving boxes of `Box` laid
/// out in shared memory with `Swizzle`. 128 bytes, trivially copyable: pass it to a kernel by
/// value as `tensor_map<...> const __grid_constant__`.
template <class T, class Box, tensor_swizzle Swizzle = tensor_swizzle::none>
class tensor_map {
 public:
  using element_type = std::remove_const_t<T>;
  using box_type = Box;
  using layout = box_layout<Box, Swizzle>;
  static constexpr std::size_t rank = Box::rank;
  static constexpr tensor_swizzle swizzle = Swizzle;
  static constexpr bool loads_only = std::is_const_v<T>;
  /// The bytes one box moves: what a barrier expects from one load.
  static constexpr std::size_t box_bytes = Box::elements * sizeof(element_type);
  /// The shared tile a box fills: its size, its swizzle, the alignment the swizzle needs.
  using shared_tile_type = shared_tile<element_type, Box::elements, layout>;

  static_assert(std::is_trivially_copyable_v<element_type> && !std::is_volatile_v<T>,
                "umsync: a tensor map moves trivially copyable elements");
  static_assert(sizeof(element_type) == 1 || sizeof(element_type) == 2 || sizeof(element_type) == 4 ||
                    sizeof(element_type) == 8,
                "umsync: a tensor map's elements are 1, 2, 4 or 8 bytes (CUtensorMapDataType)");
  static_assert(Box::extents[0] * sizeof(element_type) % 16 == 0,
                "umsync: a tensor box's first extent moves a multiple of 16 bytes (cuTensorMapEncodeTiled: boxDim[0] "
                "* element size)");
  static_assert(Swizzle == tensor_swizzle::none || Box::extents[0] * sizeof(element_type) == layout::span,
                "umsync: a swizzled tensor box's first extent spans exactly the swizzle's bytes (32, 64 or 128)");
  static_assert(box_bytes < (std::size_t(1) << 20U),
                "umsync: one barrier phase expects at most 2^20 - 1 bytes (PTX ISA, mbarrier tx-count)");

  /// The extents (elements) and strides (elements between consecutive indices of dimension 1,
  /// 2, ...; the first dimension is contiguous) of the global tensor at `base`.
  using extents_type = std::array<std::uint64_t, rank>;
  using strides_type = std::array<std::uint64_t, rank - 1>;

  /// Encodes the map for the tensor at `base` (cuTensorMapEncodeTiled, reached through the
  /// runtime). Throws invalid_argument for what the driver would refuse (an address not 16-byte
  /// aligned, an extent of 0 or over 2^32, a stride that is not a multiple of 16 bytes, is 2^40
  /// bytes or more, or makes rows overlap), cuda_error when the driver refuses.
  static tensor_map encode(T* base, extents_type const& extents, strides_type const& strides,
                           tensor_l2_promotion promotion = tensor_l2_promotion::none,
                           std::source_location where = std::source_location::current())
  {
    check_arguments(base, extents, strides, where);
    std::uint64_t stride_bytes[rank > 1 ? rank - 1 : 1] = {};
    std::uint32_t box_extents[rank] = {};
    std::uint32_t element_strides[rank] = {};
    for (std::size_t d = 0; d < rank; ++d) {
      box_extents[d] = static_cast<std::uint32_t>(Box::extents[d]);
      element_strides[d] = 1;
      if (d + 1 < rank) {
        stride_bytes[d] = strides[d] * sizeof(element_type);
      }
    }
    static auto const encode_tiled = detail::driver_function<detail::encode_tiled_function>("cuTensorMapEncodeTiled");
    tensor_map map;
    detail::check_driver(encode_tiled(&map.words_, detail::tensor_data_type<element_type>(), unsigned(rank),
                                      const_cast<element_type*>(base), extents.data(), stride_bytes, box_extents,
                                      element_strides, 0U, unsigned(Swizzle), unsigned(promotion), 0U),
                         "cuTensorMapEncodeTiled", where);
    return map;
  }

  /// encode() for a packed tensor: each dimension's stride is the product of the extents before it.
  static tensor_map encode(T* base, extents_type const& extents,
                           tensor_l2_promotion promotion = tensor_l2_promotion::none,
                           std::source_location where = std::source_location::current())
  {
    strides_type strides{};
    std::uint64_t running = 1;
    for (std::size_t d = 0; d + 1 < rank; ++d) {
      running *= extents[d];
      strides[d] = running;
    }
    return encode(base, extents, strides, promotion, where);
  }

  /// The box at `coordinates` (elements, first dimension first). The first coordinate is a
  /// multiple of 16 bytes; a loaded box may start before or reach past the tensor's edge (TMA
  /// fills those elements with zero), a stored one starts inside and may reach past it (those
  /// elements are not written). UMSYNC_DEBUG builds trap on either start.
  template <class... Coordinates>
  __device__ tensor_box<tensor_map> box_at(Coordinates... coordinates) const noexcept
  {
    static_assert(sizeof...(Coordinates) == rank,
                  "umsync: a tensor box is placed by one coordinate per dimension of its map");
    static_assert((std::is_integral_v<Coordinates> && ...), "umsync: tensor coordinates are integers (elements)");
    tensor_box<tensor_map> placed(this);
    std::size_t d = 0;
    ((placed.coordinates_[d++] = static_cast<std::int32_t>(coordinates)), ...);
#if defined(UMSYNC_DEBUG)
    check_readable();
    check_first_coordinate(placed.coordinates_[0]);
#endif
    return placed;
  }

  /// prefetch.tensormap: brings the map into the cache TMA reads it from; one thread, once,
  /// before the first copy (optional).
  __device__ void prefetch() const noexcept
  {
    asm volatile("prefetch.tensormap [%0];" ::"l"(reinterpret_cast<std::uint64_t>(&words_)) : "memory");
  }

  /// The map's address, for PTX (cp.async.bulk.tensor's [tensorMap] operand).
  __host__ __device__ void const* address() const noexcept { return &words_; }

 private:
  tensor_map() = default;

  static void check_arguments(T* base, extents_type const& extents, strides_type const& strides,
                              std::source_location const& where)
  {
    if (base == nullptr || reinterpret_cast<std::uintptr_t>(base) % 16U != 0U) {
      throw invalid_argument("tensor map at ", where, ": the global address ", static_cast<void const*>(base),
                             " is not 16-byte aligned (cuTensorMapEncodeTiled: globalAddress)");
    }
    for (std::size_t d = 0; d < rank; ++d) {
      if (extents[d] == 0 || extents[d] > detail::max_tensor_extent) {
        throw invalid_argument("tensor map at ", where, ": extent ", d, " is ", extents[d],
                               "; each extent is 1 to 2^32 elements (cuTensorMapEncodeTiled: globalDim)");
      }
    }
    std::uint64_t span = extents[0];
    for (std::size_t d = 0; d + 1 < rank; ++d) {
      std::uint64_t const bytes = strides[d] * sizeof(element_type);
      if (bytes % 16U != 0U || bytes >= detail::max_tensor_stride_bytes) {
        throw invalid_argument("tensor map at ", where, ": stride ", d + 1, " is ", bytes,
                               " bytes; a stride is a multiple of 16 bytes below 2^40 (cuTensorMapEncodeTiled: "
                               "globalStrides)");
      }
      if (strides[d] < span) {
        throw invalid_argument("tensor map at ", where, ": stride ", d + 1, " of ", strides[d],
                               " elements is shorter than the ", span,
                               " elements of the dimensions before it: the tensor's rows would overlap");
      }
      span = strides[d] * extents[d + 1];
    }
  }

#if defined(UMSYNC_DEBUG)
  /// A box starts at a multiple of 16 bytes in its first dimension (an H100 raised an illegal
  /// instruction for a 16-bit box at element 150, 300 bytes; multiples of 16 bytes ran).
  __device__ static void check_first_coordinate(std::int32_t x) noexcept
  {
    if ((static_cast<long long>(x) * static_cast<long long>(sizeof(element_type))) % 16 == 0) {
      return;
    }
    bool const prints = detail::cluster_trap_prints();
    if (prints) {
      std::printf(
          "umsync: a tensor box placed at first coordinate %d in block (%u,%u,%u) thread (%u,%u,%u) starts %lld "
          "bytes into its row; a box starts at a multiple of 16 bytes in its first dimension\n",
          int(x), blockIdx.x, blockIdx.y, blockIdx.z, threadIdx.x, threadIdx.y, threadIdx.z,
          static_cast<long long>(x) * static_cast<long long>(sizeof(element_type)));
    }
    detail::cluster_trap(prints);
  }

  __device__ void check_readable() const noexcept
  {
    if (!detail::tensor_map_readable_by_tma(&words_)) {
      bool const prints = detail::cluster_trap_prints();
      if (prints) {
        std::printf(
            "umsync: tensor map at %p in block (%u,%u,%u) thread (%u,%u,%u) is a copy in local memory; TMA reads a "
            "map from a __grid_constant__ kernel parameter, constant or global memory: declare the parameter "
            "`tensor_map<...> const __grid_constant__`\n",
            static_cast<void const*>(&words_), blockIdx.x, blockIdx.y, blockIdx.z, threadIdx.x, threadIdx.y,
            threadIdx.z);
      }
      detail::cluster_trap(prints);
    }
  }
#endif

  detail::tensor_map_words words_;
};

/// A tensor map over memory earlier grids on the stream may still write, as a parameter of a
/// kernel launched with launch_dependent (launch.hpp; pass the map itself): no copy through it
/// before the wait, which after() proves. prefetch() of the map (the kernel's own parameter, not
/// the tensor) may come first. Declare the parameter `const __grid_constant__`.
template <class T, class Box, tensor_swizzle Swizzle>
class pending<tensor_map<T, Box, Swizzle>> {
 public:
  using map_type = tensor_map<T, Box, Swizzle>;

  /// The map, after the wait that `done` proves.
  [[nodiscard]] __device__ map_type const& after(prerequisites_complete const& done) const noexcept
  {
    static_cast<void>(done);
    return map_;
  }
  __device__ void prefetch() const noexcept { map_.prefetch(); }

  /// Declared only so that a copy through the map before the wait fails with the rule's message.
  template <class... Coordinates>
  __device__ tensor_box<map_type> box_at(Coordinates... coordinates) const noexcept
  {
    static_assert(detail::dependent_false<Coordinates...>,
                  "umsync: a pending tensor map of a dependent kernel is copied through before the wait; earlier "
                  "grids may still write its tensor (NVIDIA/cutlass #2760): use after(umsync::"
                  "wait_for_prerequisite_grids()).box_at(...)");
    return map_.box_at(coordinates...);
  }

 private:
  friend struct detail::pdl_parameter_access;
  __host__ __device__ explicit pending(map_type const& map) noexcept : map_(map) {}
  map_type map_;
};

/// A tensor map over memory no earlier grid on the stream touches, usable before the wait: the
/// one claim the types take on trust (docs/pdl.md).
template <class T, class Box, tensor_swizzle Swizzle>
class independent<tensor_map<T, Box, Swizzle>> {
 public:
  using map_type = tensor_map<T, Box, Swizzle>;
  [[nodiscard]] __device__ map_type const& get() const noexcept { return map_; }

 private:
  friend struct detail::pdl_parameter_access;
  __host__ __device__ explicit independent(map_type const& map) noexcept : map_(map) {}
  map_type map_;
};

namespace detail {
template <class T, class Box, tensor_swizzle Swizzle>
inline constexpr bool pdl_value_memory<tensor_map<T, Box, Swizzle>> = true;
template <class T, class Box, tensor_swizzle Swizzle>
struct pdl_parameter<pending<tensor_map<T, Box, Swizzle>>> : std::true_type {
  using held_type = tensor_map<T, Box, Swizzle>;
};
template <class T, class Box, tensor_swizzle Swizzle>
struct pdl_parameter<independent<tensor_map<T, Box, Swizzle>>> : std::true_type {
  using held_type = tensor_map<T, Box, Swizzle>;
};
}  // namespace detail

UMSYNC_NAMESPACE_END
