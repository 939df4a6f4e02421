// GPU tests of the moved-from rule every umsync owner shares (umsync/detail/unique_handle.hpp,
// docs/architecture.md): moved-from is empty. Buffers read as zero elements; handles throw
// usage_error naming their type from get(). Destroying and assigning to either is fine, and the
// memory or handle now lives in exactly one object (nothing freed twice, nothing leaked).
#include "support/gpu_test.hpp"

#include <umsync/event.hpp>
#include <umsync/graph/graph.hpp>
#include <umsync/graph/graph_exec.hpp>
#include <umsync/memory/managed_buffer.hpp>
#include <umsync/memory/memory_pool.hpp>
#include <umsync/memory/pinned_buffer.hpp>
#include <umsync/memory/step_buffer.hpp>
#include <umsync/memory/stream_buffer.hpp>
#include <umsync/stream.hpp>

#include <cstdint>
#include <utility>

namespace {
struct compute {};

/// A moved-from buffer reads as zero elements; the moved-to one has the memory.
template <class Buffer>
void check_moved_buffer(Buffer& from, Buffer const& to, void const* memory, std::size_t n)
{
  CHECK(from.data() == nullptr);
  CHECK(from.size() == 0);
  CHECK(from.empty());
  CHECK(static_cast<void const*>(to.data()) == memory);
  CHECK(to.size() == n);
}
}  // namespace

TEST_CASE("moved-from buffers are empty: zero elements, a null pointer, freed once by the new owner")
{
  umsync_test::memory_baseline const baseline;
  std::size_t const n = 1000;
  {
    umsync::stream<compute> const s;
    umsync::stream_buffer<std::uint32_t, compute> pool_memory(n, s);
    void const* const pool_address = pool_memory.data();
    umsync::stream_buffer<std::uint32_t, compute> pool_owner(std::move(pool_memory));
    check_moved_buffer(pool_memory, pool_owner, pool_address, n);
    CHECK(pool_memory.stream() == s.view());  // still bound: it knows where it would free

    umsync::managed_buffer<std::uint32_t> managed(n);
    void const* const managed_address = managed.data();
    umsync::managed_buffer<std::uint32_t> managed_owner = std::move(managed);
    check_moved_buffer(managed, managed_owner, managed_address, n);

    umsync::pinned_buffer<std::uint32_t> pinned(n);
    void const* const pinned_address = pinned.data();
    umsync::pinned_buffer<std::uint32_t> pinned_owner(std::move(pinned));
    check_moved_buffer(pinned, pinned_owner, pinned_address, n);

    // Assigning to a moved-from buffer makes it an owner again; the old owner's memory is freed.
    pinned = std::move(pinned_owner);
    CHECK(pinned.data() == pinned_address);
    CHECK(pinned_owner.empty());  // NOLINT(bugprone-use-after-move)

    umsync::step_buffer<std::uint32_t, umsync::device_only> staged(n);
    umsync::step_buffer<std::uint32_t, umsync::device_only> staged_owner(std::move(staged));
    CHECK(staged_owner.device().size() == n);
    s.synchronize();
  }
}

TEST_CASE("moved-from handles are empty: get() throws usage_error naming the type")
{
  umsync_test::memory_baseline const baseline;
  umsync::stream<compute> s;
  umsync::stream<compute> const s_owner(std::move(s));
  CHECK_THROWS_WITH_AS(static_cast<void>(s.get()), "umsync: use of a moved-from umsync::stream", umsync::usage_error);
  CHECK_NOTHROW(static_cast<void>(s_owner.get()));

  umsync::event e;
  umsync::event const e_owner(std::move(e));
  CHECK_THROWS_WITH_AS(static_cast<void>(e.get()), "umsync: use of a moved-from umsync event", umsync::usage_error);
  CHECK_NOTHROW(static_cast<void>(e_owner.get()));

  umsync::graph g = umsync::graph::create();
  umsync::graph const g_owner(std::move(g));
  CHECK_THROWS_WITH_AS(static_cast<void>(g.get()), "umsync: use of a moved-from umsync::graph", umsync::usage_error);

  umsync::graph_exec x(g_owner);
  umsync::graph_exec const x_owner(std::move(x));
  CHECK_THROWS_WITH_AS(static_cast<void>(x.get()), "umsync: use of a moved-from umsync::graph_exec",
                       umsync::usage_error);
  CHECK_NOTHROW(static_cast<void>(x_owner.get()));

  umsync::memory_pool pool;
  umsync::memory_pool const pool_owner(std::move(pool));
  CHECK_THROWS_WITH_AS(static_cast<void>(pool.ref()), "umsync: use of a moved-from umsync::memory_pool",
                       umsync::usage_error);
  CHECK_NOTHROW(static_cast<void>(pool_owner.ref()));

  // A moved-from handle can be assigned to and used again.
  s = umsync::stream<compute>();
  CHECK_NOTHROW(s.synchronize());
}
