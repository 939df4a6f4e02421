// Helpers for the NCCL tests (umsync_nccl_tests).
#pragma once

#include "support/gpu_test.hpp"

#include <umsync/device.hpp>
#include <umsync/error.hpp>
#include <umsync/nccl.hpp>
#include <umsync/stream.hpp>

#include <cstdint>

namespace umsync_nccl_test {

/// NCCL's first communicator loads its kernels and sets up state that stays for the life of
/// the process: done once, before a test takes its memory baseline, so that the leak check
/// sees what the test itself leaves behind.
inline void warm_up_nccl()
{
  static bool const done = [] {
    int const devices[] = {umsync::current_device()};
    auto comms = umsync::nccl::communicator::init_all(devices);
    umsync::stream<> const s;
    std::uint32_t* words = nullptr;
    UMSYNC_CUDA_CHECK(cudaMalloc(&words, 2 * 1024 * sizeof(std::uint32_t)));
    UMSYNC_CUDA_CHECK(cudaMemsetAsync(words, 0, 2 * 1024 * sizeof(std::uint32_t), s.get()));
    auto const in = umsync::device_span<std::uint32_t>::adopt(words, 1024);
    auto const out = umsync::device_span<std::uint32_t>::adopt(words + 1024, 1024);
    umsync::nccl::all_reduce(in, out, umsync::nccl::reduction::sum, comms[0], s);
    umsync::nccl::all_reduce(out, umsync::nccl::reduction::sum, comms[0], s);
    s.synchronize();
    UMSYNC_CUDA_CHECK(cudaFree(words));
    return true;
  }();
  static_cast<void>(done);
}

/// Visible devices (0 on a machine without one: the executable skips before any test then).
inline int visible_devices() { return umsync::probe_devices().count; }

}  // namespace umsync_nccl_test
