// Rule: an async_pool_buffer borrows the resource it takes its memory from, and frees to it when
// destroyed, so the resource must outlive the buffer (as for RMM's device_buffer). A temporary
// resource dies at the end of the statement: refused. A device_resource_ref, which only refers
// to a resource, may be a temporary.
// expect-error: umsync: async_pool_buffer borrows its resource, which must outlive the buffer (as for RMM's device_buffer), and a temporary dies first: name the resource as a variable, or pass a umsync::device_resource_ref to one
#include <umsync/memory/async_pool_buffer.hpp>
#include <umsync/memory/resource.hpp>
#include <umsync/stream.hpp>

#include <cstddef>

struct compute {};

struct device_arena {
  void* allocate(std::size_t, std::size_t) { return nullptr; }
  void deallocate(void*, std::size_t, std::size_t) {}
  void* allocate_sync(std::size_t, std::size_t) { return nullptr; }
  void deallocate_sync(void*, std::size_t, std::size_t) {}
  void* allocate_async(std::size_t, std::size_t, cuda::stream_ref) { return nullptr; }
  void deallocate_async(void*, std::size_t, std::size_t, cuda::stream_ref) {}
  void* allocate(cuda::stream_ref, std::size_t, std::size_t) { return nullptr; }
  void deallocate(cuda::stream_ref, void*, std::size_t, std::size_t) {}
  bool operator==(device_arena const&) const { return true; }
  friend void get_property(device_arena const&, cuda::mr::device_accessible) noexcept {}
};

void use(umsync::stream<compute> const& s, device_arena& arena)
{
#if defined(UMSYNC_CF_CONTROL)
  umsync::async_pool_buffer<float, compute> x(64, s, arena);
  umsync::async_pool_buffer<float, compute> y(64, s, umsync::device_resource_ref(arena));
#else
  umsync::async_pool_buffer<float, compute> x(64, s, device_arena{});
#endif
  static_cast<void>(arena);
}
