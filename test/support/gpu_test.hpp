// Shared helpers for umsync's GPU tests: random inputs, poisoned outputs, leak checks.
#pragma once

#include <doctest/doctest.h>
#include <umsync/cuda_tool.hpp>
#include <umsync/error.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <thread>
#include <vector>

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

/// `n` random 32-bit words from `rng`: fresh inputs for every test.
inline std::vector<std::uint32_t> random_words(std::mt19937_64& rng, std::size_t n)
{
  std::vector<std::uint32_t> words(n);
  for (auto& word : words) {
    word = static_cast<std::uint32_t>(rng());
  }
  return words;
}

/// The device's free memory at construction must be back at destruction: a test that
/// leaks device memory fails even when its results are right.
///
/// The driver returns some memory lazily (unified-memory pages, graph memory, pool trims
/// after a synchronization), so the baseline is taken once free memory has stopped moving,
/// and the final check waits up to two seconds for it to come back before it fails. A real
/// leak still fails: it never comes back.
///
/// Free memory *above* the baseline is not a leak: on the H200 (driver 580.159) the UM driver
/// kept 2 MiB of device memory from the process's first managed allocation and released it
/// during a later test that used managed memory (measured 2026-12-02). Such a release is
/// reported as a message; only free memory below the baseline fails.
///
/// Under compute-sanitizer the comparison is skipped: the tool takes device memory for its
/// own bookkeeping as the test runs (118 MiB during one test on the H200), and the suite runs
/// memcheck with --leak-check full, which sees each allocation instead of a device total.
class memory_baseline {
 public:
  memory_baseline()
  {
    UMSYNC_CUDA_CHECK(cudaDeviceSynchronize());
    free_before_ = settled_free_bytes();
  }
  memory_baseline(memory_baseline const&) = delete;
  memory_baseline& operator=(memory_baseline const&) = delete;
  ~memory_baseline()
  {
    UMSYNC_CUDA_CHECK(cudaDeviceSynchronize());
    if (umsync::cuda_tool_attached()) {
      return;  // the tool allocates device memory of its own; memcheck's leak check rules there
    }
    std::size_t now = free_bytes();
    for (int wait = 0; wait < 100 && now < free_before_; ++wait) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      now = free_bytes();
    }
    CHECK_MESSAGE(now >= free_before_, "device memory not back to its baseline: " << free_before_ << " B free before, "
                                                                                  << now << " B after");
    if (now > free_before_) {
      MESSAGE("the driver released " << (now - free_before_) << " B it held before this test's baseline");
    }
  }

  /// Free memory once three reads 20 ms apart agree (at most one second).
  static std::size_t settled_free_bytes()
  {
    std::size_t last = free_bytes();
    int agreeing = 0;
    for (int wait = 0; wait < 50 && agreeing < 2; ++wait) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      std::size_t const now = free_bytes();
      agreeing = now == last ? agreeing + 1 : 0;
      last = now;
    }
    return last;
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
inline void check_launch(char const* what) { umsync::check(cudaGetLastError(), std::string("launch of ") + what); }

}  // namespace umsync_test
