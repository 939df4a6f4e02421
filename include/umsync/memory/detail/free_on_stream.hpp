// umsync/memory/detail/free_on_stream.hpp: how a stream-bound buffer gives its memory back
// (internal). free_on_stream is stream_buffer's releaser: it frees on the stream the buffer
// is bound to, to CUDA's allocator or to the resource the memory came from, which
// borrowed_resource keeps without naming its type (so the buffer's type does not depend on it).
#pragma once

#include <umsync/config.hpp>
#include <umsync/detail/debug/checker_hooks.hpp>
#include <umsync/detail/resource_properties.hpp>
#include <umsync/detail/unique_handle.hpp>
#include <umsync/error.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <new>
#include <source_location>
#include <type_traits>

UMSYNC_NAMESPACE_BEGIN
namespace detail {

/// The resource a buffer's memory goes back to, borrowed (it must outlive the buffer): a
/// resource object, by its address, or a copy of a resource reference (a device_resource_ref)
/// held in place; with the functions that free to and copy its type. Empty: CUDA's own
/// stream-ordered allocator (cudaFreeAsync). An object is not wrapped in a device_resource_ref
/// because CCCL 3.1's refers to copyable types only. Only memory/resource.hpp's
/// resource_interop names the types, so this header needs none of cuda::mr's.
class borrowed_resource {
 public:
  borrowed_resource() = default;

  /// `resource`, by its address.
  template <class Resource>
  [[nodiscard]] static borrowed_resource object(Resource& resource) noexcept
  {
    static constexpr operations freeing{[](void* object, cudaStream_t stream, void* memory, std::size_t bytes) {
                                          resource_interop<Resource>::deallocate(*static_cast<Resource*>(object),
                                                                                 stream, memory, bytes);
                                        },
                                        nullptr};
    borrowed_resource borrowed;
    borrowed.object_ = const_cast<std::remove_const_t<Resource>*>(&resource);  // NOLINT: restored when freeing
    borrowed.operations_ = &freeing;
    return borrowed;
  }

  /// A copy of the reference `ref`, held in place.
  template <class Ref>
  [[nodiscard]] static borrowed_resource copy_of(Ref const& ref) noexcept
  {
    static_assert(sizeof(Ref) <= sizeof(reference_) && alignof(Ref) <= alignof(void*) &&
                      std::is_nothrow_copy_constructible_v<Ref> && std::is_trivially_destructible_v<Ref>,
                  "umsync: a resource reference that does not fit a buffer's in-place copy");
    static constexpr operations freeing{[](void* object, cudaStream_t stream, void* memory, std::size_t bytes) {
                                          resource_interop<Ref>::deallocate(*static_cast<Ref*>(object), stream, memory,
                                                                            bytes);
                                        },
                                        [](void* to, void const* from) noexcept {
                                          ::new (to) Ref(*static_cast<Ref const*>(from));
                                        }};
    borrowed_resource borrowed;
    ::new (static_cast<void*>(borrowed.reference_)) Ref(ref);
    borrowed.operations_ = &freeing;
    return borrowed;
  }

  borrowed_resource(borrowed_resource const& other) noexcept : object_(other.object_), operations_(other.operations_)
  {
    if (operations_ != nullptr && operations_->copy != nullptr) {
      operations_->copy(reference_, other.reference_);
    }
  }
  borrowed_resource& operator=(borrowed_resource const& other) noexcept
  {
    if (this != &other) {
      this->~borrowed_resource();
      ::new (static_cast<void*>(this)) borrowed_resource(other);
    }
    return *this;
  }
  ~borrowed_resource() = default;  // a held reference is trivially destructible (copy_of)

  [[nodiscard]] bool empty() const noexcept { return operations_ == nullptr; }

  /// Gives `bytes` at `memory` back, ordered on `stream`; throws what the resource throws.
  void deallocate(cudaStream_t stream, void* memory, std::size_t bytes) const
  {
    operations_->deallocate(operations_->copy != nullptr ? static_cast<void*>(reference_) : object_, stream, memory,
                            bytes);
  }

 private:
  struct operations {
    void (*deallocate)(void*, cudaStream_t, void*, std::size_t);
    void (*copy)(void*, void const*) noexcept;  ///< null: an object by its address
  };

  void* object_ = nullptr;
  operations const* operations_ = nullptr;
  alignas(void*) mutable unsigned char reference_[2 * sizeof(void*)] = {};  ///< mutable: freed through in place
};

/// Frees pool memory on the stream it is bound to (cudaFreeAsync, or to the resource it came
/// from), after telling the UMSYNC_DEBUG checker, whose finding goes to the destructor handler:
/// a free cannot throw.
struct free_on_stream {
  cudaStream_t stream = nullptr;
  borrowed_resource resource;  ///< empty: the memory came from cudaMallocAsync / a memory_pool
  template <class T>
  void operator()(owned_elements<T> const& memory) const noexcept
  {
    try {
      debug::note_access(memory.data, memory.size * sizeof(T), stream, debug::access::free,
                         std::source_location::current());
    } catch (error const& unordered) {
      report_in_destructor(unordered);
    } catch (...) {
      report_in_destructor(cudaErrorUnknown, "the ordering checker, at a free");
    }
    debug::note_freed(memory.data);
    if (resource.empty()) {
      report_in_destructor(cudaFreeAsync(memory.data, stream), "cudaFreeAsync");
      return;
    }
    try {
      resource.deallocate(stream, memory.data, memory.size * sizeof(T));
    } catch (error const& failure) {
      report_in_destructor(failure);
    } catch (...) {
      report_in_destructor(cudaErrorUnknown, "a memory resource's deallocate, at a buffer's free");
    }
  }
};

}  // namespace detail
UMSYNC_NAMESPACE_END
