// Shared helpers for umsync's GPU tests: random inputs, poisoned outputs, leak checks.
#pragma once

#include <doctest/doctest.h>
#include <umsync/error.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>

namespace umsync_test {

/// A generator seeded fresh for each test (UMSYNC_TEST_SEED replays a failing run).
inline std::mt19937_64 make_rng()
{
  std::uint64_t seed = std::random_device{}();
  if (char const* fixed = std::getenv("UMSYNC_TEST_SEED")) {
    seed = std::strtoull(fixed, nullptr, 10);
  }
  INFO("random seed (UMSYNC_TEST_SEED): " << seed);
  MESSAGE("random seed " << seed);
  return std::mt19937_64{seed};
}

/// The device's free memory at construction must be back at destruction: a test that
/// leaks device memory fails even when its results are right.
class memory_baseline {
 public:
  memory_baseline()
  {
    UMSYNC_CUDA_CHECK(cudaDeviceSynchronize());
    free_before_ = free_bytes();
  }
  memory_baseline(memory_baseline const&) = delete;
  memory_baseline& operator=(memory_baseline const&) = delete;
  ~memory_baseline()
  {
    UMSYNC_CUDA_CHECK(cudaDeviceSynchronize());
    CHECK_MESSAGE(free_bytes() == free_before_, "device memory not back to its baseline");
  }

  static std::size_t free_bytes()
  {
    std::size_t free = 0;
    std::size_t total = 0;
    UMSYNC_CUDA_CHECK(cudaMemGetInfo(&free, &total));
    return free;
  }

 private:
  std::size_t free_before_ = 0;
};

/// Checks the last launch and throws cuda_error naming `what`.
inline void check_launch(char const* what)
{
  umsync::check(cudaGetLastError(), std::string("launch of ") + what);
}

}  // namespace umsync_test
