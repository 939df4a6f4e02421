// Helpers for the GPU tests of umsync/sync/: owning buffers of the three memory kinds, a
// cooperative launch (co-resident blocks, so blocks may wait for each other), and a probe of
// whether the host can signal a kernel that is running (not so under tools that serialize
// launches).
#pragma once

#include "support/gpu_test.hpp"

#include <umsync/error.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace umsync_test {

enum class memory { device, pinned, managed };

/// `count` elements of T in device, pinned (mapped) or managed memory, zeroed.
template <class T>
class sync_buffer {
 public:
  sync_buffer(std::size_t count, memory kind) : count_(count), kind_(kind)
  {
    void* p = nullptr;
    switch (kind) {
      case memory::device: UMSYNC_CUDA_CHECK(cudaMalloc(&p, bytes())); break;
      case memory::pinned: UMSYNC_CUDA_CHECK(cudaHostAlloc(&p, bytes(), cudaHostAllocMapped)); break;
      case memory::managed: UMSYNC_CUDA_CHECK(cudaMallocManaged(&p, bytes())); break;
    }
    data_ = static_cast<T*>(p);
    UMSYNC_CUDA_CHECK(cudaMemset(data_, 0, bytes()));
    UMSYNC_CUDA_CHECK(cudaDeviceSynchronize());
  }
  sync_buffer(sync_buffer const&) = delete;
  sync_buffer& operator=(sync_buffer const&) = delete;
  ~sync_buffer()
  {
    cudaError_t const status = kind_ == memory::pinned ? cudaFreeHost(data_) : cudaFree(data_);
    umsync::detail::report_in_destructor(status, "free of a test buffer");
  }

  [[nodiscard]] T* get() const noexcept { return data_; }
  [[nodiscard]] std::size_t size() const noexcept { return count_; }
  [[nodiscard]] std::size_t bytes() const noexcept { return count_ * sizeof(T); }

  void fill_bytes(unsigned char byte) { UMSYNC_CUDA_CHECK(cudaMemset(data_, byte, bytes())); }
  void upload(std::vector<T> const& values)
  {
    REQUIRE(values.size() == count_);
    UMSYNC_CUDA_CHECK(cudaMemcpy(data_, values.data(), bytes(), cudaMemcpyDefault));
  }
  [[nodiscard]] std::vector<T> download() const
  {
    std::vector<T> values(count_);
    UMSYNC_CUDA_CHECK(cudaMemcpy(values.data(), data_, bytes(), cudaMemcpyDefault));
    return values;
  }

 private:
  std::size_t count_;
  memory kind_;
  T* data_ = nullptr;
};

/// The first managed allocation that the device touches keeps about 126 MiB of device memory
/// for the rest of the process (measured on the H200: not a leak of the test). Call before a
/// memory_baseline in tests that use managed memory.
inline void warm_up_managed_memory()
{
  static bool const warmed = [] {
    void* p = nullptr;
    UMSYNC_CUDA_CHECK(cudaMallocManaged(&p, 4096));
    UMSYNC_CUDA_CHECK(cudaMemset(p, 0, 4096));
    UMSYNC_CUDA_CHECK(cudaDeviceSynchronize());
    UMSYNC_CUDA_CHECK(cudaFree(p));
    UMSYNC_CUDA_CHECK(cudaDeviceSynchronize());
    return true;
  }();
  static_cast<void>(warmed);
}

/// Launches `kernel` cooperatively: all blocks are resident at once, so a block may wait for
/// another without deadlocking. Checks the launch.
template <class... Params, class... Args>
void launch_cooperative(void (*kernel)(Params...), unsigned blocks, unsigned threads, cudaStream_t stream, Args... args)
{
  void* arguments[] = {static_cast<void*>(&args)...};
  UMSYNC_CUDA_CHECK(cudaLaunchCooperativeKernel(reinterpret_cast<void const*>(kernel), dim3(blocks), dim3(threads),
                                                arguments, 0, stream));
}

namespace {
/// Polls `go` for up to `budget_ns` and records whether it was seen.
__global__ void probe_host_signal(unsigned const volatile* go, unsigned* seen, std::uint64_t budget_ns)
{
  std::uint64_t start = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  std::uint64_t now = start;
  while (*go == 0U && now - start < budget_ns) {
    __nanosleep(1000);
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  }
  *seen = *go;
}
}  // namespace

/// Whether a store by the host reaches a kernel while it runs. False where launches are
/// serialized (some tools finish each kernel before the launch call returns).
inline bool host_reaches_running_kernel()
{
  sync_buffer<unsigned> go(1, memory::pinned);
  sync_buffer<unsigned> seen(1, memory::pinned);
  probe_host_signal<<<1, 1>>>(go.get(), seen.get(), 500'000'000);  // 0.5 s
  check_launch("probe_host_signal");
  *static_cast<unsigned volatile*>(go.get()) = 1U;
  UMSYNC_CUDA_CHECK(cudaDeviceSynchronize());
  return *static_cast<unsigned volatile*>(seen.get()) == 1U;
}

}  // namespace umsync_test
