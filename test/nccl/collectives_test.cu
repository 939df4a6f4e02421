// GPU tests of umsync/nccl/collectives.hpp and datatype.hpp: all-reduce on typed, stream-bound
// buckets, the compute -> communication -> compute handoff through typed edges, and NCCL
// failures of a collective. One GPU: a one-rank communicator (the sum of one rank is its
// input). Two or more: every visible GPU, one thread driving all of them through a group.
#include "support/nccl_support.hpp"
#include "support/user_memory.hpp"

#include <umsync/launch.hpp>
#include <umsync/memory/memory_pool.hpp>
#include <umsync/memory/stream_buffer.hpp>
#include <umsync/nccl/collectives.hpp>
#include <umsync/nccl/datatype.hpp>
#include <umsync/stream.hpp>
#include <umsync/stream_edge.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace {

using u32 = std::uint32_t;
struct compute {};
struct comm {};
constexpr umsync::launch_config grid{.grid = 132, .block = 256};

static_assert(umsync::nccl::datatype_of<float> == ncclFloat32);
static_assert(umsync::nccl::datatype_of<double const> == ncclFloat64);
static_assert(umsync::nccl::datatype_of<std::int8_t> == ncclInt8);
static_assert(umsync::nccl::datatype_of<std::uint8_t> == ncclUint8);
static_assert(umsync::nccl::datatype_of<std::int32_t> == ncclInt32);
static_assert(umsync::nccl::datatype_of<u32> == ncclUint32);
static_assert(umsync::nccl::datatype_of<std::int64_t> == ncclInt64);
static_assert(umsync::nccl::datatype_of<long long> == ncclInt64);
static_assert(umsync::nccl::datatype_of<unsigned long long> == ncclUint64);
static_assert(umsync::nccl::datatype_of<__half> == ncclFloat16);
static_assert(umsync::nccl::datatype_of<__nv_bfloat16> == ncclBfloat16);
static_assert(umsync::nccl::datatype_of<__nv_fp8_e4m3> == ncclFloat8e4m3);
static_assert(umsync::nccl::datatype_of<__nv_fp8_e5m2> == ncclFloat8e5m2);

/// Waits `delay_ns` in every block before writing: a producer slow enough that a missing
/// edge lets the next stream read the bucket before it is written.
__global__ void slow_produce(u32 const* in, u32* out, std::size_t n, std::uint64_t delay_ns)
{
  if (threadIdx.x == 0) {
    std::uint64_t start = 0;
    std::uint64_t now = 0;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    do {
      asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    } while (now - start < delay_ns);
  }
  __syncthreads();
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
    out[i] = in[i] * 2654435761U;
  }
}

/// The "optimizer": reads the reduced bucket.
__global__ void consume(u32 const* reduced, u32* out, std::size_t n)
{
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
    out[i] = reduced[i] + 7U;
  }
}

std::vector<u32> copy_back(u32 const* device_words, std::size_t n, cudaStream_t stream)
{
  std::vector<u32> host(n);
  UMSYNC_CUDA_CHECK(cudaMemcpyAsync(host.data(), device_words, n * sizeof(u32), cudaMemcpyDeviceToHost, stream));
  UMSYNC_CUDA_CHECK(cudaStreamSynchronize(stream));
  return host;
}

std::size_t count_differences(std::vector<u32> const& got, std::vector<u32> const& want)
{
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    wrong += got[i] != want[i] ? 1 : 0;
  }
  return wrong;
}

}  // namespace

TEST_CASE("one-rank all-reduce sum of random data gives the input, in place and out of place")
{
  umsync_nccl_test::warm_up_nccl();
  umsync_test::memory_baseline const baseline;
  auto rng = umsync_test::make_rng();
  std::size_t const n = (std::size_t{1} << 20) + 37;  // not a multiple of any vector width
  auto const input = umsync_test::random_words(rng, n);
  int const devices[] = {umsync::current_device()};
  {
    auto comms = umsync::nccl::communicator::init_all(devices);
    umsync::memory_pool pool;
    umsync::stream<comm> const ns;
    umsync::stream_buffer<u32, comm> bucket(n, ns, pool);
    umsync::stream_buffer<u32, comm> reduced(n, ns, pool);
    UMSYNC_CUDA_CHECK(cudaMemcpyAsync(bucket.data(), input.data(), n * sizeof(u32), cudaMemcpyHostToDevice, ns.get()));
    UMSYNC_CUDA_CHECK(cudaMemsetAsync(reduced.data(), 0xA5, n * sizeof(u32), ns.get()));  // poison

    umsync::nccl::all_reduce(bucket, reduced, umsync::nccl::reduction::sum, comms[0], ns);
    CHECK(count_differences(copy_back(reduced.data(), n, ns.get()), input) == 0);

    umsync::nccl::all_reduce(bucket, umsync::nccl::reduction::sum, comms[0], ns);  // in place
    CHECK(count_differences(copy_back(bucket.data(), n, ns.get()), input) == 0);

    // max of one rank is the input as well; as floats, through a span of the same memory.
    auto const as_float = umsync::device_span<float, comm>::adopt(reinterpret_cast<float*>(reduced.data()), n);
    std::vector<float> floats(n);
    for (std::size_t i = 0; i < n; ++i) {
      floats[i] = static_cast<float>(input[i] % 100000U) * 0.25F;
    }
    UMSYNC_CUDA_CHECK(cudaMemcpyAsync(as_float.data(), floats.data(), n * sizeof(float), cudaMemcpyHostToDevice,
                                      ns.get()));
    umsync::nccl::all_reduce(as_float, umsync::nccl::reduction::max, comms[0], ns);
    std::vector<float> back(n);
    UMSYNC_CUDA_CHECK(cudaMemcpyAsync(back.data(), as_float.data(), n * sizeof(float), cudaMemcpyDeviceToHost,
                                      ns.get()));
    ns.synchronize();
    CHECK(std::memcmp(back.data(), floats.data(), n * sizeof(float)) == 0);
    comms[0].check_async_error();
  }
}

TEST_CASE("a user's own device memory type (umsync_memory, support/user_memory.hpp) is reduced like a bucket")
{
  umsync_nccl_test::warm_up_nccl();
  umsync_test::memory_baseline const baseline;
  auto rng = umsync_test::make_rng();
  std::size_t const n = (std::size_t{1} << 16) + rng() % 1000;
  auto const input = umsync_test::random_words(rng, n);
  int const devices[] = {umsync::current_device()};
  {
    auto comms = umsync::nccl::communicator::init_all(devices);
    umsync::stream<comm> const ns;
    umsync::stream_buffer<u32, comm> send_memory(n, ns);
    umsync::stream_buffer<u32, comm> receive_memory(n, ns);
    userlib::stream_array<u32, comm> const send{send_memory.data(), n};
    userlib::device_array<u32> receive{receive_memory.data(), n};
    UMSYNC_CUDA_CHECK(cudaMemcpyAsync(send.pointer, input.data(), n * sizeof(u32), cudaMemcpyHostToDevice, ns.get()));
    UMSYNC_CUDA_CHECK(cudaMemsetAsync(receive.pointer, 0xA5, n * sizeof(u32), ns.get()));  // poison
    umsync::nccl::all_reduce(send, receive, umsync::nccl::reduction::sum, comms[0], ns);
    CHECK(count_differences(copy_back(receive.pointer, n, ns.get()), input) == 0);
    comms[0].check_async_error();
  }
}

TEST_CASE("a bucket crosses compute -> communication -> compute through typed edges behind a slow producer")
{
  umsync_nccl_test::warm_up_nccl();
  umsync_test::memory_baseline const baseline;
  auto rng = umsync_test::make_rng();
  std::size_t const n = std::size_t{1} << 22;  // 16 MiB of words
  auto const input = umsync_test::random_words(rng, n);
  std::vector<u32> expected(n);
  for (std::size_t i = 0; i < n; ++i) {
    expected[i] = input[i] * 2654435761U + 7U;
  }
  int const devices[] = {umsync::current_device()};
  {
    auto comms = umsync::nccl::communicator::init_all(devices);
    umsync::memory_pool pool;
    umsync::stream<compute> const cs;
    umsync::stream<comm> const ns;
    umsync::stream_edge to_comm(cs, ns);
    umsync::stream_edge to_compute(ns, cs);

    umsync::stream_buffer<u32, compute> source(n, cs, pool);
    umsync::stream_buffer<u32, compute> out(n, cs, pool);
    UMSYNC_CUDA_CHECK(cudaMemcpyAsync(source.data(), input.data(), n * sizeof(u32), cudaMemcpyHostToDevice, cs.get()));
    UMSYNC_CUDA_CHECK(cudaMemsetAsync(out.data(), 0xFF, n * sizeof(u32), cs.get()));  // poison

    for (int step = 0; step < 3; ++step) {
      umsync::stream_buffer<u32, compute> grads(n, cs, pool);
      umsync::launch(cs, grid, slow_produce, source, grads, n, std::uint64_t{20'000'000});  // 20 ms
      auto grads_on_comm = to_comm.transfer(std::move(grads));                              // event on cs, ns waits
      // Allocated and poisoned on the communication stream: a reduce that runs before the
      // producer finished would copy poison, not the gradients.
      umsync::stream_buffer<u32, comm> reduced(n, ns, pool);
      UMSYNC_CUDA_CHECK(cudaMemsetAsync(reduced.data(), 0xA5, n * sizeof(u32), ns.get()));
      umsync::nccl::all_reduce(grads_on_comm, reduced, umsync::nccl::reduction::sum, comms[0], ns);
      auto reduced_on_compute = to_compute.transfer(std::move(reduced));  // event on ns, cs waits
      auto grads_back = to_compute.transfer(std::move(grads_on_comm));    // freed on cs, its last user
      umsync::launch(cs, grid, consume, reduced_on_compute, out, n);
      CHECK(count_differences(copy_back(out.data(), n, cs.get()), expected) == 0);
      UMSYNC_CUDA_CHECK(cudaMemsetAsync(out.data(), 0xFF, n * sizeof(u32), cs.get()));
    }
    cs.synchronize();
    ns.synchronize();
    CHECK(pool.ref().used_bytes() == 2 * n * sizeof(u32));  // every bucket freed; source and out remain
  }
}

TEST_CASE("a collective NCCL rejects throws nccl_error naming ncclAllReduce, and frees nothing twice")
{
  umsync_nccl_test::warm_up_nccl();
  umsync_test::memory_baseline const baseline;
  int const devices[] = {umsync::current_device()};
  {
    auto comms = umsync::nccl::communicator::init_all(devices);
    umsync::stream<comm> const ns;
    umsync::stream_buffer<u32, comm> bucket(1024, ns);
    auto const unknown = static_cast<umsync::nccl::reduction>(-1);  // not an NCCL reduction
    try {
      umsync::nccl::all_reduce(bucket, unknown, comms[0], ns);
      FAIL("ncclAllReduce accepted reduction -1");
    } catch (umsync::nccl_error const& e) {
      MESSAGE(e.what());
      CHECK(e.code() == ncclInvalidArgument);
      CHECK(std::string_view(e.call()) == "ncclAllReduce");
      CHECK(std::string(e.what()).find("umsync: ncclAllReduce failed with ncclInvalidArgument") != std::string::npos);
      CHECK(std::string(e.what()).find("nccl/collectives_test.cu") != std::string::npos);
    }
    umsync::stream_buffer<u32, comm> short_receive(512, ns);
    CHECK_THROWS_AS(umsync::nccl::all_reduce(bucket, short_receive, umsync::nccl::reduction::sum, comms[0], ns),
                    umsync::usage_error);
    ns.synchronize();
    comms[0].check_async_error();  // the rejected calls left the communicator usable
    umsync::nccl::all_reduce(bucket, umsync::nccl::reduction::sum, comms[0], ns);
    ns.synchronize();
  }
}

TEST_CASE("all-reduce sum across every visible GPU, one thread driving all ranks (needs 2 or more GPUs)")
{
  int const count = umsync_nccl_test::visible_devices();
  if (count < 2) {
    MESSAGE("needs at least 2 GPUs, " << count << " visible: not run here");
    return;
  }
  auto rng = umsync_test::make_rng();
  std::size_t const n = (std::size_t{1} << 20) + 5;
  auto comms = umsync::nccl::communicator::init_all();
  REQUIRE(comms.size() == static_cast<std::size_t>(count));

  struct rank_state {
    umsync::stream<compute> cs;
    umsync::stream<comm> ns;
    umsync::stream_edge<compute, comm> to_comm{cs, ns};
    umsync::stream_edge<comm, compute> to_compute{ns, cs};
    std::optional<umsync::stream_buffer<u32, compute>> grads;
    std::optional<umsync::stream_buffer<u32, comm>> on_comm;
  };
  std::vector<std::vector<u32>> inputs;
  std::vector<u32> expected(n, 0U);
  std::vector<std::unique_ptr<rank_state>> ranks;
  for (int d = 0; d < count; ++d) {
    UMSYNC_CUDA_CHECK(cudaSetDevice(d));  // streams, events and pool memory of device d
    inputs.push_back(umsync_test::random_words(rng, n));
    for (std::size_t i = 0; i < n; ++i) {
      expected[i] += inputs.back()[i];
    }
    auto& rank = *ranks.emplace_back(std::make_unique<rank_state>());
    rank.grads.emplace(n, rank.cs);
    UMSYNC_CUDA_CHECK(cudaMemcpyAsync(rank.grads->data(), inputs.back().data(), n * sizeof(u32), cudaMemcpyHostToDevice,
                                      rank.cs.get()));
    rank.on_comm.emplace(rank.to_comm.transfer(std::move(*rank.grads)));
    rank.grads.reset();
  }
  {
    umsync::nccl::group all_ranks;
    for (int d = 0; d < count; ++d) {
      auto& rank = *ranks[static_cast<std::size_t>(d)];
      umsync::nccl::all_reduce(*rank.on_comm, umsync::nccl::reduction::sum, comms[static_cast<std::size_t>(d)],
                               rank.ns);
    }
    all_ranks.end();
  }
  for (int d = 0; d < count; ++d) {
    UMSYNC_CUDA_CHECK(cudaSetDevice(d));
    auto& rank = *ranks[static_cast<std::size_t>(d)];
    auto reduced = rank.to_compute.transfer(std::move(*rank.on_comm));
    rank.on_comm.reset();
    CHECK(count_differences(copy_back(reduced.data(), n, rank.cs.get()), expected) == 0);
  }
  UMSYNC_CUDA_CHECK(cudaSetDevice(0));
  ranks.clear();
}
