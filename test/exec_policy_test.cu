// GPU tests of umsync/exec_policy.hpp: Thrust algorithms on a umsync stream, their temporaries
// stream-ordered from the pool or resource the policy names, results against host references.
#include "support/gpu_test.hpp"
#include "support/mock_resources.hpp"

#include <umsync/exec_policy.hpp>
#include <umsync/memory/copy.hpp>
#include <umsync/memory/memory_pool.hpp>
#include <umsync/memory/pinned_buffer.hpp>
#include <umsync/memory/resource.hpp>
#include <umsync/memory/stream_buffer.hpp>
#include <umsync/stream.hpp>

#include <thrust/reduce.h>
#include <thrust/sort.h>
#include <thrust/transform.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace {
struct compute {};
using umsync_test::counting_resource;

struct affine {
  std::uint32_t a;
  std::uint32_t b;
  __host__ __device__ std::uint32_t operator()(std::uint32_t x) const { return a * x + b; }
};

static_assert(umsync::stream_ordered_resource<counting_resource>);

/// Sorts, reduces and transforms a fresh random input with policies made by `policy()` and
/// `nosync()`; checks each result against the host.
template <class Policy, class Nosync>
void sort_reduce_transform(umsync::stream<compute> const& s, Policy&& policy, Nosync&& nosync)
{
  auto rng = umsync_test::make_rng();
  std::size_t const n = (std::size_t{1} << 20) + (rng() % 5000);
  std::vector<std::uint32_t> const input = umsync_test::random_words(rng, n);
  affine const op{static_cast<std::uint32_t>(rng()) | 1U, static_cast<std::uint32_t>(rng())};
  umsync::pinned_buffer<std::uint32_t> host(n);
  std::copy(input.begin(), input.end(), host.begin());
  umsync::stream_buffer<std::uint32_t, compute> keys(n, s);
  umsync::stream_buffer<std::uint32_t, compute> mapped(n, s);
  umsync::copy_async(keys, host, s);
  std::uint32_t* const k = keys.data();
  std::uint32_t* const m = mapped.data();
  thrust::transform(nosync(), k, k + n, m, op);
  thrust::sort(policy(), k, k + n);
  std::uint64_t const sum = thrust::reduce(policy(), m, m + n, std::uint64_t{0});
  std::fill(host.begin(), host.end(), 0xDEADBEEFU);  // poison
  umsync::copy_async(host, keys, s);
  s.synchronize();

  std::vector<std::uint32_t> want = input;
  std::sort(want.begin(), want.end());
  CHECK(std::equal(want.begin(), want.end(), host.begin()));
  std::uint64_t want_sum = 0;
  for (std::uint32_t const x : input) {
    want_sum += op(x);
  }
  CHECK(sum == want_sum);
}

}  // namespace

TEST_CASE("exec_policy: sort, reduce and transform on the device's current pool")
{
  umsync_test::memory_baseline const baseline;
  umsync::stream<compute> const s;
  sort_reduce_transform(
      s, [&] { return umsync::exec_policy(s); }, [&] { return umsync::exec_policy_nosync(s); });
}

TEST_CASE("exec_policy: temporaries come from the given memory_pool, freed on the stream")
{
  umsync_test::memory_baseline const baseline;
  umsync::stream<compute> const s;
  umsync::memory_pool pool;
  pool.ref().reset_high_water();
  sort_reduce_transform(
      s, [&] { return umsync::exec_policy(s, pool); }, [&] { return umsync::exec_policy_nosync(s, pool.ref()); });
  CHECK(pool.ref().used_high_water() > 0);  // the sort's temporaries came from the pool
  CHECK(pool.ref().used_bytes() == 0);      // and went back to it
}

TEST_CASE("exec_policy: temporaries come from a stream-ordered resource the policy borrows")
{
  umsync_test::memory_baseline const baseline;
  umsync::stream<compute> const s;
  counting_resource resource;
  sort_reduce_transform(
      s, [&] { return umsync::exec_policy(s, resource); }, [&] { return umsync::exec_policy_nosync(s, resource); });
  CHECK(!resource.allocations.empty());
  CHECK(resource.live_bytes() == 0);
  umsync::device_resource_ref const ref(resource);
  std::size_t const before = resource.allocations.size();
  sort_reduce_transform(
      s, [&] { return umsync::exec_policy(s, ref); }, [&] { return umsync::exec_policy_nosync(s, ref); });
  CHECK(resource.allocations.size() > before);
  CHECK(resource.live_bytes() == 0);
}
