// Rule: a swizzled box's first extent spans exactly the swizzle's bytes (the layout umsync's tile
// index undoes); 32 16-bit elements are 64 bytes, not 128.
// expect-error: umsync: a swizzled tensor box's first extent spans exactly the swizzle's bytes (32, 64 or 128)
#include <umsync/sync/tensor_map.hpp>

#include <cstdint>

#if defined(UMSYNC_CF_CONTROL)
using map = umsync::tensor_map<std::uint16_t const, umsync::box<32, 32>, umsync::tensor_swizzle::bytes_64>;
#else
using map = umsync::tensor_map<std::uint16_t const, umsync::box<32, 32>, umsync::tensor_swizzle::bytes_128>;
#endif
static_assert(map::box_bytes == 2048);
