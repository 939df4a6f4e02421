// Rule: an async_pool_buffer made from a cuda::mr resource needs <umsync/memory/resource.hpp>.
// The buffer header leaves cuda::mr's concepts out, so that code without resources does not
// compile them (docs/compile-cost.md); a resource given to a buffer where they are missing
// names the header instead of failing on an incomplete type.
// expect-error: umsync: an async_pool_buffer made from a memory resource needs #include <umsync/memory/resource.hpp> (the cuda::mr concepts, which the buffer header leaves out so that code without resources does not compile them)
#include <umsync/memory/async_pool_buffer.hpp>
#include <umsync/stream.hpp>
#if defined(UMSYNC_CF_CONTROL)
// The same code with the resource header: accepted.
#  include <umsync/memory/resource.hpp>
#endif

#include <cstddef>

struct compute {};

// A stream-ordered resource of device-accessible memory, under both CCCL spellings.
struct arena {
  void* allocate_async(std::size_t, std::size_t, cuda::stream_ref) { return nullptr; }
  void deallocate_async(void*, std::size_t, std::size_t, cuda::stream_ref) {}
  void* allocate(std::size_t, std::size_t) { return nullptr; }
  void deallocate(void*, std::size_t, std::size_t) {}
  void* allocate(cuda::stream_ref, std::size_t, std::size_t) { return nullptr; }
  void deallocate(cuda::stream_ref, void*, std::size_t, std::size_t) {}
  void* allocate_sync(std::size_t, std::size_t) { return nullptr; }
  void deallocate_sync(void*, std::size_t, std::size_t) {}
  bool operator==(arena const&) const { return true; }
  friend void get_property(arena const&, cuda::mr::device_accessible) noexcept {}
};

void use(umsync::stream<compute> const& s, arena& resource)
{
  umsync::async_pool_buffer<float, compute> x(64, s, resource);
}
