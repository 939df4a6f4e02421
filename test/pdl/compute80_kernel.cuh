// The kernel of pdl/compute80_kernel.cu, built for compute_80 only.
#pragma once

#include <umsync/pdl.hpp>

#include <cstddef>
#include <cstdint>

namespace umsync_test {
using compute80_copy_fn = void (*)(umsync::pending<std::uint32_t const>, umsync::pending<std::uint32_t>, std::size_t);
compute80_copy_fn compute80_copy_kernel();
}  // namespace umsync_test
