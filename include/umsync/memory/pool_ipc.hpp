// umsync/memory/pool_ipc.hpp: sharing pool allocations with another process (Linux).
//
// Exporting process:                          Importing process:
//   memory_pool pool({.exportable = true});     memory_pool pool = import_pool(fd);
//   auto fd = export_pool(pool);                imported_allocation<T> a(pool, token, n);
//   (pass fd, e.g. by inheritance or            ... use a.data() ...
//    SCM_RIGHTS, and the token's text)          (a frees itself; the exporter frees after)
//   auto token = export_allocation(buffer.data());
//
// Managed memory cannot be shared this way (cudaIpcGetMemHandle on it fails: measured); pool
// memory and cudaMalloc memory can. The importer must free its view before the exporter
// frees the allocation.
#pragma once

#include <umsync/config.hpp>
#include <umsync/error.hpp>
#include <umsync/memory/memory_pool.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <source_location>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

#include <unistd.h>

UMSYNC_NAMESPACE_BEGIN

/// An owned POSIX file descriptor (closed on destruction).
class file_descriptor {
 public:
  constexpr explicit file_descriptor(int fd = -1) noexcept : fd_(fd) {}
  file_descriptor(file_descriptor const&) = delete;
  file_descriptor& operator=(file_descriptor const&) = delete;
  file_descriptor(file_descriptor&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  file_descriptor& operator=(file_descriptor&& other) noexcept
  {
    if (this != &other) {
      reset();
      fd_ = std::exchange(other.fd_, -1);
    }
    return *this;
  }
  ~file_descriptor() { reset(); }

  [[nodiscard]] int get() const noexcept { return fd_; }
  /// Gives up ownership (e.g. after handing the descriptor to a child process).
  [[nodiscard]] int release() noexcept { return std::exchange(fd_, -1); }

 private:
  void reset() noexcept
  {
    if (fd_ >= 0) {
      ::close(fd_);
      fd_ = -1;
    }
  }
  int fd_;
};

/// A descriptor another process can import the pool from. The pool must be exportable.
[[nodiscard]] inline file_descriptor export_pool(memory_pool_ref pool,
                                                 std::source_location where = std::source_location::current())
{
  int fd = -1;
  check(cudaMemPoolExportToShareableHandle(&fd, pool.get(), cudaMemHandleTypePosixFileDescriptor, 0),
        "cudaMemPoolExportToShareableHandle", where);
  return file_descriptor(fd);
}

/// Opens a pool another process exported. Imported pools cannot allocate; they hold
/// allocations imported with imported_allocation.
[[nodiscard]] inline memory_pool import_pool(int fd, std::source_location where = std::source_location::current())
{
  cudaMemPool_t pool = nullptr;
  check(cudaMemPoolImportFromShareableHandle(&pool, reinterpret_cast<void*>(static_cast<std::intptr_t>(fd)),
                                             cudaMemHandleTypePosixFileDescriptor, 0),
        "cudaMemPoolImportFromShareableHandle", where);
  return memory_pool::adopt_imported(pool);
}

/// Names one allocation of an exportable pool for another process; as text with to_text().
struct allocation_token {
  cudaMemPoolPtrExportData data{};

  [[nodiscard]] std::string to_text() const
  {
    std::string text;
    for (unsigned char byte : data.reserved) {
      char hex[3];
      std::snprintf(hex, sizeof hex, "%02x", byte);
      text += hex;
    }
    return text;
  }
  /// Parses to_text()'s output; throws std::invalid_argument on anything else.
  [[nodiscard]] static allocation_token from_text(std::string_view text)
  {
    allocation_token token;
    if (text.size() != 2 * sizeof token.data.reserved) {
      throw std::invalid_argument("umsync: an allocation token is " + std::to_string(2 * sizeof token.data.reserved) +
                                  " hex digits, got " + std::to_string(text.size()));
    }
    auto digit = [](char c) -> int {
      if (c >= '0' && c <= '9') return c - '0';
      if (c >= 'a' && c <= 'f') return c - 'a' + 10;
      throw std::invalid_argument("umsync: an allocation token holds lowercase hex digits only");
    };
    for (std::size_t i = 0; i < sizeof token.data.reserved; ++i) {
      token.data.reserved[i] = static_cast<unsigned char>(digit(text[2 * i]) * 16 + digit(text[2 * i + 1]));
    }
    return token;
  }
};

/// The token of `pointer`, an allocation from an exportable pool. Its allocation must have
/// completed before the importer touches it.
[[nodiscard]] inline allocation_token export_allocation(void const* pointer,
                                                        std::source_location where = std::source_location::current())
{
  allocation_token token;
  check(cudaMemPoolExportPointer(&token.data, const_cast<void*>(pointer)), "cudaMemPoolExportPointer", where);
  return token;
}

/// Another process's allocation, mapped into this one for its lifetime (freed with cudaFree).
template <class T>
class imported_allocation {
 public:
  imported_allocation(memory_pool_ref pool, allocation_token token, std::size_t count,
                      std::source_location where = std::source_location::current())
      : size_(count)
  {
    void* pointer = nullptr;
    check(cudaMemPoolImportPointer(&pointer, pool.get(), &token.data), "cudaMemPoolImportPointer", where);
    data_ = static_cast<T*>(pointer);
  }
  imported_allocation(imported_allocation const&) = delete;
  imported_allocation& operator=(imported_allocation const&) = delete;
  imported_allocation(imported_allocation&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0))
  {
  }
  imported_allocation& operator=(imported_allocation&&) = delete;
  ~imported_allocation()
  {
    if (data_ != nullptr) {
      detail::report_in_destructor(cudaFree(data_), "cudaFree (imported allocation)");
    }
  }

  [[nodiscard]] T* data() const noexcept { return data_; }
  [[nodiscard]] std::size_t size() const noexcept { return size_; }

 private:
  T* data_ = nullptr;
  std::size_t size_ = 0;
};

UMSYNC_NAMESPACE_END
