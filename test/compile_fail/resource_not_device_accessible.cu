// Rule: an async_pool_buffer holds device memory, so the resource it takes its memory from must
// say that its memory is device accessible (cuda::mr::device_accessible). A host-only resource
// is named here, not in a kernel that faults on its memory.
// expect-error: umsync: async_pool_buffer holds device memory, so its resource must be device_accessible: it says so with friend void get_property(R const&, cuda::mr::device_accessible) noexcept {}
#include <umsync/memory/async_pool_buffer.hpp>
#include <umsync/memory/resource.hpp>
#include <umsync/stream.hpp>

#include <cstddef>

struct compute {};

// Stream-ordered, under both CCCL spellings, but its memory is host memory.
struct host_arena {
  void* allocate(std::size_t, std::size_t) { return nullptr; }
  void deallocate(void*, std::size_t, std::size_t) {}
  void* allocate_sync(std::size_t, std::size_t) { return nullptr; }
  void deallocate_sync(void*, std::size_t, std::size_t) {}
  void* allocate_async(std::size_t, std::size_t, cuda::stream_ref) { return nullptr; }
  void deallocate_async(void*, std::size_t, std::size_t, cuda::stream_ref) {}
  void* allocate(cuda::stream_ref, std::size_t, std::size_t) { return nullptr; }
  void deallocate(cuda::stream_ref, void*, std::size_t, std::size_t) {}
  bool operator==(host_arena const&) const { return true; }
  friend void get_property(host_arena const&, cuda::mr::host_accessible) noexcept {}
#if defined(UMSYNC_CF_CONTROL)
  friend void get_property(host_arena const&, cuda::mr::device_accessible) noexcept {}  // pinned, say: accepted
#endif
};

void use(umsync::stream<compute> const& s, host_arena& arena)
{
  umsync::async_pool_buffer<float, compute> x(64, s, arena);
}
