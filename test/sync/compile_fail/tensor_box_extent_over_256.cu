// Rule: each extent of a box is 1 to 256 elements (cuTensorMapEncodeTiled, boxDim).
// expect-error: umsync: each extent of a tensor box is 1 to 256 elements (cuTensorMapEncodeTiled, boxDim)
#include <umsync/sync/tensor_map.hpp>

#if defined(UMSYNC_CF_CONTROL)
using shape = umsync::box<64, 256>;
#else
using shape = umsync::box<64, 512>;
#endif
static_assert(shape::rank == 2);
