// umsync/sync/box_layout.hpp: the box a tensor copy moves (extents, first one contiguous) and how
// it lies in shared memory (box_layout: the swizzle, the alignment it needs, where element i is),
// the layout of the tiles tensor_map.hpp's maps fill.
#pragma once

#include <umsync/config.hpp>

#include <cstddef>

UMSYNC_NAMESPACE_BEGIN

/// The shared-memory swizzle of a tensor copy (CUtensorMapSwizzle's values): 16-byte chunks
/// permuted within a span of 32, 64 or 128 bytes, so that rows read down a column do not
/// collide in one bank.
enum class tensor_swizzle : unsigned { none = 0, bytes_32 = 1, bytes_64 = 2, bytes_128 = 3 };

/// The box one tensor copy moves: its extents in elements, the first (contiguous) one first.
template <std::size_t... Extents>
struct box {
  static_assert(sizeof...(Extents) >= 1 && sizeof...(Extents) <= 5,
                "umsync: a tensor box has 1 to 5 dimensions (PTX ISA, cp.async.bulk.tensor)");
  static_assert(((Extents >= 1 && Extents <= 256) && ...),
                "umsync: each extent of a tensor box is 1 to 256 elements (cuTensorMapEncodeTiled, boxDim)");
  static constexpr std::size_t rank = sizeof...(Extents);
  static constexpr std::size_t elements = (Extents * ...);
  static constexpr std::size_t extents[rank] = {Extents...};
};

/// The shared-memory layout of a box a tensor copy wrote with `Swizzle`: the box's elements in
/// order, the first extent fastest, with each 16-byte chunk's index within its 128-byte row
/// XORed with bits 7.. of its address (one bit for 32-byte spans, two for 64, three for 128:
/// CUDA programming guide, TMA swizzle). The storage is aligned to the pattern's period so that
/// the XOR seen from the tile's start is the one TMA applied.
template <class Box, tensor_swizzle Swizzle>
struct box_layout {
  using box_type = Box;
  static constexpr tensor_swizzle swizzle = Swizzle;
  /// The swizzle's span in bytes (0 for none).
  static constexpr std::size_t span = Swizzle == tensor_swizzle::none ? 0 : std::size_t(16) << unsigned(Swizzle);
  static constexpr std::size_t alignment = Swizzle == tensor_swizzle::none ? 128 : span * 8;

  template <class T>
  __host__ __device__ static constexpr std::size_t offset(std::size_t index) noexcept
  {
    if constexpr (Swizzle == tensor_swizzle::none) {
      return index;
    } else {
      constexpr std::size_t row_bits = ((std::size_t(1) << unsigned(Swizzle)) - 1) << 7;
      std::size_t const byte = index * sizeof(T);
      return (byte ^ ((byte & row_bits) >> 3)) / sizeof(T);
    }
  }
};

namespace detail {

template <class Layout>
inline constexpr bool is_box_layout = false;
template <class Box, tensor_swizzle Swizzle>
inline constexpr bool is_box_layout<box_layout<Box, Swizzle>> = true;

}  // namespace detail

UMSYNC_NAMESPACE_END
