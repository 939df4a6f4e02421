// Rule: an async_pool_buffer takes its memory from a stream-ordered resource (cuda::mr), which
// allocates and frees on the buffer's stream. A synchronous-only resource could not order the
// free after the work queued on that stream, so it names the rule instead of failing in CCCL.
// expect-error: umsync: async_pool_buffer takes its memory from a stream-ordered resource, which allocates and frees on the buffer's stream (umsync::stream_ordered_resource: CCCL 3.1's allocate(stream, bytes, alignment) and deallocate(stream, p, bytes, alignment), CCCL 3.0's allocate_async and deallocate_async); a synchronous resource cannot order its free after the buffer's work
#include <umsync/memory/async_pool_buffer.hpp>
#include <umsync/memory/resource.hpp>
#include <umsync/stream.hpp>

#include <cstddef>

struct compute {};

// Synchronous allocation only, under both CCCL spellings (3.0: allocate; 3.1: allocate_sync).
struct synchronous_arena {
  void* allocate(std::size_t, std::size_t) { return nullptr; }
  void deallocate(void*, std::size_t, std::size_t) {}
  void* allocate_sync(std::size_t, std::size_t) { return nullptr; }
  void deallocate_sync(void*, std::size_t, std::size_t) {}
#if defined(UMSYNC_CF_CONTROL)
  // The same resource, stream-ordered too: accepted.
  void* allocate_async(std::size_t, std::size_t, cuda::stream_ref) { return nullptr; }
  void deallocate_async(void*, std::size_t, std::size_t, cuda::stream_ref) {}
  void* allocate(cuda::stream_ref, std::size_t, std::size_t) { return nullptr; }
  void deallocate(cuda::stream_ref, void*, std::size_t, std::size_t) {}
#endif
  bool operator==(synchronous_arena const&) const { return true; }
  friend void get_property(synchronous_arena const&, cuda::mr::device_accessible) noexcept {}
};

void use(umsync::stream<compute> const& s, synchronous_arena& arena)
{
  umsync::async_pool_buffer<float, compute> x(64, s, arena);
}
