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
// frees the allocation. Both ends take named pools: a temporary memory_pool (export_pool of
// memory_pool{...}, an imported_allocation from import_pool(fd) itself) does not convert to the
// memory_pool_ref they take (memory_pool.hpp), since it is destroyed at the end of the statement.
#pragma once

#include <umsync/config.hpp>
#include <umsync/detail/debug/checker_hooks.hpp>
#include <umsync/detail/returned_string.hpp>
#include <umsync/detail/unique_handle.hpp>
#include <umsync/error.hpp>
#include <umsync/memory/memory_pool.hpp>
#include <umsync/memory/memory_span.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <source_location>

// POSIX close(), declared as <unistd.h> declares it, which is all this header needs of it (the
// header costs the umbrella about 1.3k preprocessed lines, docs/compile-cost.md). Compatible with
// <unistd.h> (test/memory/pool_ipc_test.cu includes both).
extern "C" int close(int descriptor);

UMSYNC_NAMESPACE_BEGIN

namespace detail {

/// The "no descriptor" value -1 as the empty state unique_handle expects (a value-initialised one).
struct descriptor {
  int fd = -1;
  friend bool operator==(descriptor, descriptor) = default;
};
struct close_descriptor {
  void operator()(descriptor d) const noexcept { ::close(d.fd); }
};

}  // namespace detail

/// An owned POSIX file descriptor (closed on destruction). Move-only; moved-from, it is empty
/// (get() is -1).
class file_descriptor {
 public:
  explicit file_descriptor(int fd = -1) noexcept : fd_(detail::descriptor{fd}) {}

  [[nodiscard]] int get() const noexcept { return fd_.get().fd; }
  /// Gives up ownership (e.g. after handing the descriptor to a child process).
  [[nodiscard]] int release() noexcept { return fd_.release().fd; }

 private:
  detail::unique_handle<detail::descriptor, detail::close_descriptor> fd_;
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

  /// The token as lowercase hex digits. A std::string: needs <string> where it is called
  /// (detail/returned_string.hpp).
  template <class String = std::string>
  [[nodiscard]] auto to_text() const
  {
    return detail::string_from<String>([this](auto& text) {
      for (unsigned char byte : data.reserved) {
        char hex[3];
        std::snprintf(hex, sizeof hex, "%02x", byte);
        text.append(hex, 2);
      }
    });
  }
  /// Parses to_text()'s output; throws invalid_argument on anything else.
  [[nodiscard]] static allocation_token from_text(detail::text_view text)
  {
    allocation_token token;
    if (text.size() != 2 * sizeof token.data.reserved) {
      throw invalid_argument("an allocation token is ", 2 * sizeof token.data.reserved, " hex digits, got ",
                             text.size());
    }
    auto digit = [](char c) -> int {
      if (c >= '0' && c <= '9') return c - '0';
      if (c >= 'a' && c <= 'f') return c - 'a' + 10;
      throw invalid_argument("an allocation token holds lowercase hex digits only");
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

namespace detail {

struct free_imported {
  template <class T>
  void operator()(owned_elements<T> const& memory) const noexcept
  {
    debug::note_freed(memory.data);
    report_in_destructor(cudaFree(memory.data), "cudaFree (imported allocation)");
  }
};

}  // namespace detail

/// Another process's allocation, mapped into this one for its lifetime (freed with cudaFree).
/// Move-only; moved-from, it is empty. It is device memory for the protocol (memory_range.hpp).
template <class T>
class imported_allocation {
 public:
  imported_allocation(memory_pool_ref pool, allocation_token token, std::size_t count,
                      std::source_location where = std::source_location::current())
  {
    void* pointer = nullptr;
    check(cudaMemPoolImportPointer(&pointer, pool.get(), &token.data), "cudaMemPoolImportPointer", where);
    memory_ = decltype(memory_)(detail::owned_elements<T>{static_cast<T*>(pointer), count});
    detail::debug::note_allocated(pointer, count * sizeof(T));
  }

  [[nodiscard]] T* data() const noexcept { return memory_.get().data; }
  [[nodiscard]] std::size_t size() const noexcept { return memory_.get().size; }

  friend device_span<T> umsync_memory(imported_allocation const& allocation) noexcept(!debug_build)
  {
    allocation.memory_.debug_check_not_moved_from("umsync::imported_allocation");
    return device_span<T>::adopt(allocation.data(), allocation.size());
  }

 private:
  detail::unique_handle<detail::owned_elements<T>, detail::free_imported> memory_;
};

UMSYNC_NAMESPACE_END
