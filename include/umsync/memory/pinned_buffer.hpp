// umsync/memory/pinned_buffer.hpp: page-locked host memory, owned (pinned_buffer) or
// registered in place (host_registration).
//
// Async copies between device and pinned memory run on the copy engines at full PCIe speed
// and do not block the host; pageable memory would make them synchronous.
#pragma once

#include <umsync/config.hpp>
#include <umsync/error.hpp>
#include <umsync/memory/memory_span.hpp>

#include <cstddef>
#include <limits>
#include <source_location>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

UMSYNC_NAMESPACE_BEGIN

/// `count` elements of page-locked host memory (cudaMallocHost). Move-only.
template <class T>
class pinned_buffer {
  static_assert(std::is_trivially_copyable_v<T>, "umsync: pinned_buffer holds trivially copyable elements only");

 public:
  using value_type = T;

  explicit pinned_buffer(std::size_t count, std::source_location where = std::source_location::current()) : size_(count)
  {
    if (count > std::numeric_limits<std::size_t>::max() / sizeof(T)) {
      throw std::length_error("umsync: pinned_buffer of " + std::to_string(count) + " elements overflows size_t");
    }
    if (count == 0) {
      return;
    }
    void* memory = nullptr;
    cudaError_t const status = cudaMallocHost(&memory, count * sizeof(T));
    if (status == cudaErrorMemoryAllocation) {
      static_cast<void>(cudaGetLastError());
      throw bad_alloc(count * sizeof(T), "cudaMallocHost", {}, where);
    }
    check(status, "cudaMallocHost", where);
    data_ = static_cast<T*>(memory);
  }
  pinned_buffer(pinned_buffer const&) = delete;
  pinned_buffer& operator=(pinned_buffer const&) = delete;
  pinned_buffer(pinned_buffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0))
  {
  }
  pinned_buffer& operator=(pinned_buffer&& other) noexcept
  {
    if (this != &other) {
      release();
      data_ = std::exchange(other.data_, nullptr);
      size_ = std::exchange(other.size_, 0);
    }
    return *this;
  }
  ~pinned_buffer() { release(); }

  [[nodiscard]] T* data() noexcept { return data_; }
  [[nodiscard]] T const* data() const noexcept { return data_; }
  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  [[nodiscard]] T& operator[](std::size_t i) noexcept { return data_[i]; }
  [[nodiscard]] T const& operator[](std::size_t i) const noexcept { return data_[i]; }
  [[nodiscard]] T* begin() noexcept { return data_; }
  [[nodiscard]] T* end() noexcept { return data_ + size_; }
  [[nodiscard]] pinned_span<T> span() noexcept { return pinned_span<T>::adopt(data_, size_); }
  [[nodiscard]] pinned_span<T const> span() const noexcept { return pinned_span<T const>::adopt(data_, size_); }

 private:
  void release() noexcept
  {
    if (data_ != nullptr) {
      detail::report_in_destructor(cudaFreeHost(data_), "cudaFreeHost");
      data_ = nullptr;
    }
  }

  T* data_ = nullptr;
  std::size_t size_ = 0;
};

/// Page-locks existing host memory for its lifetime (cudaHostRegister). The memory must
/// outlive the registration. Move-only.
template <class T>
class host_registration {
 public:
  explicit host_registration(std::span<T> memory, std::source_location where = std::source_location::current())
      : memory_(memory)
  {
    if (!memory_.empty()) {
      check(cudaHostRegister(const_cast<std::remove_const_t<T>*>(memory_.data()), memory_.size_bytes(),
                             cudaHostRegisterDefault),
            "cudaHostRegister", where);
    }
  }
  host_registration(host_registration const&) = delete;
  host_registration& operator=(host_registration const&) = delete;
  host_registration(host_registration&& other) noexcept : memory_(std::exchange(other.memory_, {})) {}
  host_registration& operator=(host_registration&& other) noexcept
  {
    if (this != &other) {
      release();
      memory_ = std::exchange(other.memory_, {});
    }
    return *this;
  }
  ~host_registration() { release(); }

  [[nodiscard]] pinned_span<T> span() const noexcept { return pinned_span<T>::adopt(memory_.data(), memory_.size()); }

 private:
  void release() noexcept
  {
    if (!memory_.empty()) {
      detail::report_in_destructor(cudaHostUnregister(const_cast<std::remove_const_t<T>*>(memory_.data())),
                                   "cudaHostUnregister");
      memory_ = {};
    }
  }

  std::span<T> memory_;
};

UMSYNC_NAMESPACE_END
