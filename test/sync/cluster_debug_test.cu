// GPU tests of the UMSYNC_DEBUG cluster checks (sync/cluster.hpp): a cluster_shared_scope in a
// kernel launched without a cluster shape, a rank out of range, an address outside shared
// memory, an arrival never waited and one waited twice each trap with a message; correct
// cluster kernels, launched with __cluster_dims__ or with the launch attribute, do not. A trap
// ends the CUDA context, so each trapping case runs in a child process.
#include "support/child_process.hpp"
#include "support/cluster_launch.cuh"
#include "support/device_trap.hpp"
#include "support/gpu_test.hpp"

#include <umsync/sync/cluster.hpp>

#include <sys/wait.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

static_assert(umsync::debug_build, "this file is built with UMSYNC_DEBUG");

namespace {

constexpr unsigned threads = 128;

enum class misuse : unsigned { none, rank_out_of_range, not_shared, arrival_unwaited, arrival_waited_twice };

// out[b][t] = the next block's input t, through a scope; `Misuse` breaks one rule.
template <misuse Misuse>
__device__ void exchange(std::uint32_t const* in, std::uint32_t* out)
{
  __shared__ std::uint32_t tile[threads];
  tile[threadIdx.x] = in[blockIdx.x * threads + threadIdx.x];
  unsigned const count = umsync::cluster::block_count();
  unsigned next = (umsync::cluster::block_rank() + 1U) % count;
  if constexpr (Misuse == misuse::rank_out_of_range) {
    next = count;
  }
  if constexpr (Misuse == misuse::arrival_unwaited) {
    {
      auto const arrival = umsync::cluster::arrive();
    }
  }
  auto arrival = umsync::cluster::arrive();
  umsync::cluster_shared_scope const scope(arrival.wait());
  if constexpr (Misuse == misuse::arrival_waited_twice) {
    static_cast<void>(arrival.wait());
  }
  if constexpr (Misuse == misuse::not_shared) {
    out[blockIdx.x * threads + threadIdx.x] = scope.map(in, next)[threadIdx.x];
  } else {
    out[blockIdx.x * threads + threadIdx.x] = scope.map(static_cast<std::uint32_t const*>(tile), next)[threadIdx.x];
  }
}

template <misuse Misuse>
__global__ void exchange_kernel(std::uint32_t const* in, std::uint32_t* out)
{
  exchange<Misuse>(in, out);
}

__global__ void __cluster_dims__(2, 1, 1) exchange_fixed_shape(std::uint32_t const* in, std::uint32_t* out)
{
  exchange<misuse::none>(in, out);
}

constexpr unsigned blocks = 64;

std::size_t wrong_exchanges(std::vector<std::uint32_t> const& input, std::vector<std::uint32_t> const& output,
                            unsigned size)
{
  std::size_t wrong = 0;
  for (unsigned b = 0; b < blocks; ++b) {
    unsigned const next = b / size * size + (b % size + 1U) % size;
    for (unsigned t = 0; t < threads; ++t) {
      wrong += output[b * threads + t] == input[next * threads + t] ? 0U : 1U;
    }
  }
  return wrong;
}

// In a child: launches the kernel plainly or in clusters of 2 and prints the launch status.
template <misuse Misuse>
void run_child(bool plain_launch)
{
  std::uint32_t* memory = nullptr;
  UMSYNC_CUDA_CHECK(cudaMalloc(&memory, 2 * blocks * threads * sizeof(std::uint32_t)));
  if (plain_launch) {
    exchange_kernel<Misuse><<<blocks, threads>>>(memory, memory + blocks * threads);
  } else {
    umsync_test::launch_in_clusters(exchange_kernel<Misuse>, blocks, 2U, threads,
                                    static_cast<std::uint32_t const*>(memory), memory + blocks * threads);
  }
  umsync_test::print_child_status();
}

}  // namespace

TEST_CASE("debug builds: correct cluster kernels run without a trap, shaped by __cluster_dims__ or at launch")
{
  if (!umsync_test::device_has_clusters()) {
    MESSAGE("this device has no thread block clusters");
    return;
  }
  umsync_test::memory_baseline const baseline;
  auto rng = umsync_test::make_rng();
  std::vector<std::uint32_t> const input = umsync_test::random_words(rng, std::size_t(blocks) * threads);
  std::uint32_t* in = nullptr;
  std::uint32_t* out = nullptr;
  std::size_t const bytes = input.size() * sizeof(std::uint32_t);
  UMSYNC_CUDA_CHECK(cudaMalloc(&in, bytes));
  UMSYNC_CUDA_CHECK(cudaMalloc(&out, bytes));
  UMSYNC_CUDA_CHECK(cudaMemcpy(in, input.data(), bytes, cudaMemcpyHostToDevice));
  std::vector<std::uint32_t> result(input.size());
  for (unsigned const size : {2U, 4U}) {
    CAPTURE(size);
    UMSYNC_CUDA_CHECK(cudaMemset(out, 0xA5, bytes));  // poison
    umsync_test::launch_in_clusters(exchange_kernel<misuse::none>, blocks, size, threads,
                                    static_cast<std::uint32_t const*>(in), out);
    UMSYNC_CUDA_CHECK(cudaDeviceSynchronize());
    UMSYNC_CUDA_CHECK(cudaMemcpy(result.data(), out, bytes, cudaMemcpyDeviceToHost));
    CHECK(wrong_exchanges(input, result, size) == 0);
  }
  UMSYNC_CUDA_CHECK(cudaMemset(out, 0xA5, bytes));
  exchange_fixed_shape<<<blocks, threads>>>(in, out);
  umsync_test::check_launch("exchange_fixed_shape");
  UMSYNC_CUDA_CHECK(cudaDeviceSynchronize());
  UMSYNC_CUDA_CHECK(cudaMemcpy(result.data(), out, bytes, cudaMemcpyDeviceToHost));
  CHECK(wrong_exchanges(input, result, 2) == 0);
  UMSYNC_CUDA_CHECK(cudaFree(in));
  UMSYNC_CUDA_CHECK(cudaFree(out));
}

TEST_CASE("child process - cluster scope without a cluster shape" * doctest::skip()) { run_child<misuse::none>(true); }
TEST_CASE("child process - cluster map rank out of range" * doctest::skip())
{
  run_child<misuse::rank_out_of_range>(false);
}
TEST_CASE("child process - cluster map of global memory" * doctest::skip()) { run_child<misuse::not_shared>(false); }
TEST_CASE("child process - cluster arrival never waited" * doctest::skip())
{
  run_child<misuse::arrival_unwaited>(false);
}
TEST_CASE("child process - cluster arrival waited twice" * doctest::skip())
{
  run_child<misuse::arrival_waited_twice>(false);
}

TEST_CASE("a cluster_shared_scope in a kernel launched without a cluster shape traps")
{
  umsync_test::expect_child_trap("child process - cluster scope without a cluster shape",
                                 {"umsync: cluster_shared_scope in a kernel launched without a cluster shape (block (",
                                  "); launch it with a cluster dimension (__cluster_dims__ or the launch attribute)"});
}

TEST_CASE("mapping a rank outside the cluster traps, naming the rank and the cluster's size")
{
  umsync_test::expect_child_trap("child process - cluster map rank out of range",
                                 {"umsync: cluster_shared_scope::map: rank 2 is out of range in block (",
                                  "; the cluster has 2 blocks (ranks 0..1)"});
}

TEST_CASE("mapping an address outside the block's shared memory traps")
{
  umsync_test::expect_child_trap("child process - cluster map of global memory",
                                 {"umsync: cluster_shared_scope::map: the address ",
                                  " is not in the calling block's shared memory"});
}

TEST_CASE("a cluster arrival destroyed without wait() traps")
{
  umsync_test::expect_child_trap("child process - cluster arrival never waited",
                                 {"umsync: cluster_arrival destroyed without wait() in block (",
                                  "; the thread must wait before it arrives again or exits"});
}

TEST_CASE("a cluster arrival waited twice traps")
{
  umsync_test::expect_child_trap("child process - cluster arrival waited twice",
                                 {"umsync: cluster_arrival waited twice in block (", "; each arrival is waited once"});
}
