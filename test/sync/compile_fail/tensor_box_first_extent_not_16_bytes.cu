// Rule: a box's first extent moves a multiple of 16 bytes (cuTensorMapEncodeTiled, boxDim[0]).
// expect-error: umsync: a tensor box's first extent moves a multiple of 16 bytes (cuTensorMapEncodeTiled: boxDim[0] * element size)
#include <umsync/sync/tensor_map.hpp>

#include <cstdint>

#if defined(UMSYNC_CF_CONTROL)
using map = umsync::tensor_map<float const, umsync::box<8, 32>>;
#else
using map = umsync::tensor_map<float const, umsync::box<6, 32>>;
#endif
static_assert(map::rank == 2);
