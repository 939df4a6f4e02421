// GPU tests of umsync/memory/memory_pool.hpp.
#include "support/gpu_test.hpp"

#include <umsync/memory/memory_pool.hpp>
#include <umsync/memory/stream_buffer.hpp>
#include <umsync/stream.hpp>

TEST_CASE("an owned pool keeps what it reserved across synchronization, and trims on request")
{
  umsync_test::memory_baseline const baseline;
  umsync::memory_pool pool;
  umsync::memory_pool_ref const ref = pool;
  CHECK(ref.release_threshold() == umsync::memory_pool_ref::keep_everything);
  umsync::stream<> const s;
  std::size_t const bytes = std::size_t{64} << 20;
  {
    umsync::stream_buffer<std::byte> block(bytes, s, pool);
    s.synchronize();
    CHECK(ref.used_bytes() >= bytes);
  }
  s.synchronize();
  CHECK(ref.used_bytes() == 0);
  CHECK(ref.reserved_bytes() >= bytes);  // kept: the threshold is "keep everything"
  CHECK(ref.used_high_water() >= bytes);
  ref.reset_high_water();
  CHECK(ref.used_high_water() == 0);
  ref.trim_to(0);
  CHECK(ref.reserved_bytes() == 0);
}

TEST_CASE("a pool with threshold 0 gives memory back at synchronization, as the default pool does")
{
  umsync_test::memory_baseline const baseline;
  umsync::memory_pool pool({.release_threshold = 0});
  umsync::stream<> const s;
  {
    umsync::stream_buffer<std::byte> block(std::size_t{32} << 20, s, pool);
  }
  s.synchronize();
  CHECK(pool.ref().reserved_bytes() == 0);
  MESSAGE("device default pool release threshold: " << umsync::memory_pool_ref::device_default(0).release_threshold());
}

TEST_CASE("reuse policy round-trips, and memory_pool_options sets it at creation")
{
  umsync::memory_pool pool;
  pool.ref().set_reuse(
      {.follow_event_dependencies = true, .allow_opportunistic = false, .allow_internal_dependencies = false});
  auto const policy = pool.ref().reuse();
  CHECK(policy.follow_event_dependencies);
  CHECK_FALSE(policy.allow_opportunistic);
  CHECK_FALSE(policy.allow_internal_dependencies);

  umsync::memory_pool independent({.reuse = {.allow_internal_dependencies = false}});
  auto const set_at_creation = independent.ref().reuse();
  CHECK(set_at_creation.follow_event_dependencies);
  CHECK(set_at_creation.allow_opportunistic);
  CHECK_FALSE(set_at_creation.allow_internal_dependencies);
}

TEST_CASE("a moved-from pool refuses use; an invalid device throws cuda_error")
{
  umsync::memory_pool a;
  umsync::memory_pool b = std::move(a);
  CHECK_THROWS_AS(static_cast<void>(a.ref()), umsync::usage_error);  // NOLINT(bugprone-use-after-move)
  CHECK(b.ref().used_bytes() == 0);
  CHECK_THROWS_AS(umsync::memory_pool({.device = 999}), umsync::cuda_error);
}
