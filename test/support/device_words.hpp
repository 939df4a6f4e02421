// Device words, freed on every way out of a test: for the GPU tests that move raw memory (bulk
// copies, clusters, pipelines), cudaMalloc'd, poisoned, uploaded and downloaded, every call checked.
#pragma once

#include <umsync/error.hpp>

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace umsync_test {

class device_words {
 public:
  explicit device_words(std::size_t n) : size_(n) { UMSYNC_CUDA_CHECK(cudaMalloc(&data_, n * sizeof(std::uint32_t))); }
  device_words(device_words const&) = delete;
  device_words& operator=(device_words const&) = delete;
  ~device_words() { static_cast<void>(cudaFree(data_)); }
  [[nodiscard]] std::uint32_t* get() const noexcept { return data_; }
  void upload(std::vector<std::uint32_t> const& words) const
  {
    UMSYNC_CUDA_CHECK(cudaMemcpy(data_, words.data(), size_ * sizeof(std::uint32_t), cudaMemcpyHostToDevice));
  }
  void poison() const { UMSYNC_CUDA_CHECK(cudaMemset(data_, 0xA5, size_ * sizeof(std::uint32_t))); }
  [[nodiscard]] std::vector<std::uint32_t> download() const
  {
    std::vector<std::uint32_t> words(size_);
    UMSYNC_CUDA_CHECK(cudaMemcpy(words.data(), data_, size_ * sizeof(std::uint32_t), cudaMemcpyDeviceToHost));
    return words;
  }

 private:
  std::uint32_t* data_ = nullptr;
  std::size_t size_;
};

}  // namespace umsync_test
