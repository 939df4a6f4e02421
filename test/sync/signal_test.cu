// GPU tests of umsync/sync/signal.hpp: flags, monotonic counters and exact values between the
// threads of a block, between blocks (cooperative launches, so the blocks are co-resident), and
// between the host and a running kernel through pinned and managed memory.
#include "support/gpu_test.hpp"
#include "support/sync_kernels.cuh"

#include <umsync/sync/bounded_wait.hpp>
#include <umsync/sync/signal.hpp>

#include <chrono>
#include <cstdint>
#include <vector>

namespace {

using namespace std::chrono_literals;

static_assert(umsync::flag<umsync::block_shared>::scope == cuda::thread_scope_block);
static_assert(umsync::flag<umsync::device_global>::scope == cuda::thread_scope_device);
static_assert(umsync::counter<umsync::system_visible>::scope == cuda::thread_scope_system);
static_assert(umsync::counter<umsync::device_global, cuda::thread_scope_system>::scope == cuda::thread_scope_system);

constexpr std::uint64_t generous_ns = 5'000'000'000;  // 5 s: a hang, not a slow machine

// Block 0 writes `n` words and posts; block 1 waits and copies them. Inside a block the data
// reach the posting thread through __syncthreads, and the waiting block's threads through it.
__global__ void flag_between_blocks(std::uint32_t const* in, std::uint32_t* data, std::uint32_t* out, unsigned n,
                                    std::uint32_t* flag_word, umsync::wait_record* record)
{
  umsync::flag<umsync::device_global> const ready{flag_word};
  if (blockIdx.x == 0) {
    for (unsigned i = threadIdx.x; i < n; i += blockDim.x) {
      data[i] = in[i] ^ 0x5A5A5A5AU;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
      ready.post();
    }
  } else {
    if (threadIdx.x == 0) {
      ready.wait(umsync::wait_budget{record, generous_ns, "block 1 waits for block 0's data"});
    }
    __syncthreads();
    for (unsigned i = threadIdx.x; i < n; i += blockDim.x) {
      out[i] = data[i];
    }
  }
}

// Blocks 1..N-1 each fill their slot and add 1; block 0 waits for N-1 and sums the slots.
__global__ void counter_gather(std::uint32_t const* in, std::uint32_t* slots, std::uint64_t* counter_word,
                               std::uint64_t* sum_out, std::uint64_t* seen_out, umsync::wait_record* record)
{
  umsync::counter<umsync::device_global> const filled{counter_word};
  if (blockIdx.x != 0) {
    if (threadIdx.x == 0) {
      slots[blockIdx.x] = in[blockIdx.x] * 3U;
      filled.add(1);
    }
    return;
  }
  if (threadIdx.x == 0) {
    std::uint64_t const producers = gridDim.x - 1;
    *seen_out = filled.wait_at_least(producers, umsync::wait_budget{record, generous_ns, "gather waits for slots"});
    std::uint64_t sum = 0;
    for (unsigned b = 1; b < gridDim.x; ++b) {
      sum += slots[b];
    }
    *sum_out = sum;
  }
}

// Two blocks take turns through one exact value: odd values are block 0's turns done, even
// values block 1's. Each turn passes a payload on.
__global__ void ping_pong(std::uint64_t* phase_word, std::uint32_t* payload, std::uint32_t const* in,
                          std::uint32_t* out, unsigned rounds, umsync::wait_record* record)
{
  if (threadIdx.x != 0) {
    return;
  }
  umsync::exact_value<umsync::device_global> const phase{phase_word};
  umsync::wait_budget const budget{record, generous_ns, "ping-pong turn"};
  for (unsigned r = 0; r < rounds; ++r) {
    if (blockIdx.x == 0) {
      payload[0] = in[r];
      phase.store(2 * r + 1);
      phase.wait_equal(2 * r + 2, budget);
      out[r] = payload[0];
    } else {
      phase.wait_equal(2 * r + 1, budget);
      payload[0] = payload[0] * 7U + 1U;
      phase.store(2 * r + 2);
    }
  }
}

// Warp 1 fills shared memory and posts a block-scope flag in shared memory; warp 0 waits.
__global__ void flag_in_shared_memory(std::uint32_t const* in, std::uint32_t* out)
{
  __shared__ std::uint32_t values[32];
  __shared__ std::uint32_t flag_word;
  if (threadIdx.x == 0) {
    flag_word = 0;
  }
  __syncthreads();
  umsync::flag<umsync::block_shared> const ready{&flag_word};
  unsigned const lane = threadIdx.x % 32;
  if (threadIdx.x >= 32) {
    values[lane] = in[blockIdx.x * 32 + lane] + 11U;
    __syncwarp();
    if (lane == 0) {
      ready.post();
    }
  } else {
    if (lane == 0) {
      ready.wait();
    }
    __syncwarp();
    out[blockIdx.x * 32 + lane] = values[31 - lane];
  }
}

// Device <-> host through system_visible memory: the kernel publishes `n` words and posts, then
// waits for the host's answer and writes it back doubled.
__global__ void talk_to_host(std::uint32_t* to_host, std::uint32_t* to_host_flag, std::uint32_t const* from_host,
                             std::uint32_t* from_host_flag, std::uint32_t* out, unsigned n, std::uint32_t seed,
                             umsync::wait_record* record)
{
  if (threadIdx.x != 0) {
    return;
  }
  umsync::flag<umsync::system_visible> const posted{to_host_flag};
  umsync::flag<umsync::system_visible> const answered{from_host_flag};
  for (unsigned i = 0; i < n; ++i) {
    to_host[i] = seed + i * 0x9E3779B9U;
  }
  posted.post();
  answered.wait(umsync::wait_budget{record, generous_ns, "kernel waits for the host's answer"});
  for (unsigned i = 0; i < n; ++i) {
    out[i] = from_host[i] * 2U;
  }
}

__global__ void count_blocks_to_host(std::uint64_t* counter_word)
{
  if (threadIdx.x == 0) {
    umsync::counter<umsync::system_visible>{counter_word}.add(1);
  }
}

void host_device_conversation(umsync_test::memory kind)
{
  if (kind == umsync_test::memory::managed) {
    umsync_test::warm_up_managed_memory();
  }
  umsync_test::memory_baseline const baseline;
  auto rng = umsync_test::make_rng();
  if (!umsync_test::host_reaches_running_kernel()) {
    CHECK_MESSAGE(umsync::cuda_tool_attached(),
                  "a host store did not reach a running kernel, and no tool serializes launches");
    MESSAGE("launches are serialized here (a tool runs the process): host -> device signalling not tested");
    return;
  }
  constexpr unsigned n = 64;
  auto const seed = static_cast<std::uint32_t>(rng());
  std::vector<std::uint32_t> const answer = umsync_test::random_words(rng, n);
  umsync_test::sync_buffer<std::uint32_t> to_host(n, kind);
  umsync_test::sync_buffer<std::uint32_t> to_host_flag(1, kind);
  umsync_test::sync_buffer<std::uint32_t> from_host(n, kind);
  umsync_test::sync_buffer<std::uint32_t> from_host_flag(1, kind);
  umsync_test::sync_buffer<std::uint32_t> out(n, umsync_test::memory::device);
  out.fill_bytes(0xA5);
  umsync::wait_diagnostics diagnostics;
  UMSYNC_CUDA_CHECK(cudaDeviceSynchronize());

  talk_to_host<<<1, 32>>>(to_host.get(), to_host_flag.get(), from_host.get(), from_host_flag.get(), out.get(), n, seed,
                          diagnostics.device_record());
  umsync_test::check_launch("talk_to_host");
  umsync::flag<umsync::system_visible> const posted{to_host_flag.get()};
  bool const heard = posted.wait_for(10s);
  CHECK(heard);
  if (heard) {
    std::size_t wrong = 0;
    for (unsigned i = 0; i < n; ++i) {
      wrong += to_host.get()[i] != seed + i * 0x9E3779B9U ? 1U : 0U;
    }
    CHECK(wrong == 0);
  }
  for (unsigned i = 0; i < n; ++i) {
    from_host.get()[i] = answer[i];
  }
  umsync::flag<umsync::system_visible>{from_host_flag.get()}.post();  // releases the answer
  diagnostics.check(cudaDeviceSynchronize(), "cudaDeviceSynchronize after talk_to_host");
  std::vector<std::uint32_t> const result = out.download();
  std::size_t wrong = 0;
  for (unsigned i = 0; i < n; ++i) {
    wrong += result[i] != answer[i] * 2U ? 1U : 0U;
  }
  CHECK(wrong == 0);
}

}  // namespace

TEST_CASE("a device_global flag passes data from one block to another")
{
  umsync_test::memory_baseline const baseline;
  auto rng = umsync_test::make_rng();
  constexpr unsigned n = 4096;
  std::vector<std::uint32_t> const input = umsync_test::random_words(rng, n);
  umsync_test::sync_buffer<std::uint32_t> in(n, umsync_test::memory::device);
  umsync_test::sync_buffer<std::uint32_t> data(n, umsync_test::memory::device);
  umsync_test::sync_buffer<std::uint32_t> out(n, umsync_test::memory::device);
  umsync_test::sync_buffer<std::uint32_t> flag_word(1, umsync_test::memory::device);
  umsync::wait_diagnostics diagnostics;
  in.upload(input);
  out.fill_bytes(0xA5);
  umsync_test::launch_cooperative(flag_between_blocks, 2, 256, nullptr, in.get(), data.get(), out.get(), n,
                                  flag_word.get(), diagnostics.device_record());
  diagnostics.check(cudaDeviceSynchronize(), "cudaDeviceSynchronize after flag_between_blocks");
  std::vector<std::uint32_t> const result = out.download();
  std::size_t wrong = 0;
  for (unsigned i = 0; i < n; ++i) {
    wrong += result[i] != (input[i] ^ 0x5A5A5A5AU) ? 1U : 0U;
  }
  CHECK(wrong == 0);
  CHECK(flag_word.download()[0] == 1U);
  CHECK_FALSE(diagnostics.timed_out());
}

TEST_CASE("a monotonic counter gathers the work of many blocks; the wait sees at least the target")
{
  umsync_test::memory_baseline const baseline;
  auto rng = umsync_test::make_rng();
  constexpr unsigned blocks = 32;
  std::vector<std::uint32_t> const input = umsync_test::random_words(rng, blocks);
  umsync_test::sync_buffer<std::uint32_t> in(blocks, umsync_test::memory::device);
  umsync_test::sync_buffer<std::uint32_t> slots(blocks, umsync_test::memory::device);
  umsync_test::sync_buffer<std::uint64_t> counter_word(1, umsync_test::memory::device);
  umsync_test::sync_buffer<std::uint64_t> sum(1, umsync_test::memory::device);
  umsync_test::sync_buffer<std::uint64_t> seen(1, umsync_test::memory::device);
  umsync::wait_diagnostics diagnostics;
  in.upload(input);
  sum.fill_bytes(0xA5);
  umsync_test::launch_cooperative(counter_gather, blocks, 64, nullptr, in.get(), slots.get(), counter_word.get(),
                                  sum.get(), seen.get(), diagnostics.device_record());
  diagnostics.check(cudaDeviceSynchronize(), "cudaDeviceSynchronize after counter_gather");
  std::uint64_t expected = 0;
  for (unsigned b = 1; b < blocks; ++b) {
    expected += static_cast<std::uint32_t>(input[b] * 3U);
  }
  CHECK(sum.download()[0] == expected);
  CHECK(seen.download()[0] >= blocks - 1);
  CHECK(counter_word.download()[0] == blocks - 1);
}

TEST_CASE("an exact value lets two blocks take turns")
{
  umsync_test::memory_baseline const baseline;
  auto rng = umsync_test::make_rng();
  constexpr unsigned rounds = 200;
  std::vector<std::uint32_t> const input = umsync_test::random_words(rng, rounds);
  umsync_test::sync_buffer<std::uint64_t> phase(1, umsync_test::memory::device);
  umsync_test::sync_buffer<std::uint32_t> payload(1, umsync_test::memory::device);
  umsync_test::sync_buffer<std::uint32_t> in(rounds, umsync_test::memory::device);
  umsync_test::sync_buffer<std::uint32_t> out(rounds, umsync_test::memory::device);
  umsync::wait_diagnostics diagnostics;
  in.upload(input);
  out.fill_bytes(0xA5);
  umsync_test::launch_cooperative(ping_pong, 2, 32, nullptr, phase.get(), payload.get(), in.get(), out.get(), rounds,
                                  diagnostics.device_record());
  diagnostics.check(cudaDeviceSynchronize(), "cudaDeviceSynchronize after ping_pong");
  std::vector<std::uint32_t> const result = out.download();
  std::size_t wrong = 0;
  for (unsigned r = 0; r < rounds; ++r) {
    wrong += result[r] != input[r] * 7U + 1U ? 1U : 0U;
  }
  CHECK(wrong == 0);
  CHECK(phase.download()[0] == 2U * rounds);
}

TEST_CASE("a block_shared flag orders shared memory between two warps")
{
  if (umsync::cuda_tool_attached()) {
    // racecheck orders shared memory by barriers only, so it reports acquire/release hand-offs.
    MESSAGE("a CUDA tool instruments this process: shared-memory flag hand-off not run here");
    return;
  }
  umsync_test::memory_baseline const baseline;
  auto rng = umsync_test::make_rng();
  constexpr unsigned blocks = 16;
  std::vector<std::uint32_t> const input = umsync_test::random_words(rng, blocks * 32);
  umsync_test::sync_buffer<std::uint32_t> in(input.size(), umsync_test::memory::device);
  umsync_test::sync_buffer<std::uint32_t> out(input.size(), umsync_test::memory::device);
  in.upload(input);
  out.fill_bytes(0xA5);
  flag_in_shared_memory<<<blocks, 64>>>(in.get(), out.get());
  umsync_test::check_launch("flag_in_shared_memory");
  UMSYNC_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<std::uint32_t> const result = out.download();
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < input.size(); ++i) {
    std::size_t const block_start = i - i % 32;
    wrong += result[i] != input[block_start + 31 - i % 32] + 11U ? 1U : 0U;
  }
  CHECK(wrong == 0);
}

// Managed, not pinned: the device's fetch_add on pinned host memory needs host native atomics
// (see signal.hpp).
TEST_CASE("a system_visible counter in managed memory tells the host how many blocks finished")
{
  umsync_test::warm_up_managed_memory();
  umsync_test::memory_baseline const baseline;
  constexpr unsigned blocks = 48;
  umsync_test::sync_buffer<std::uint64_t> counter_word(1, umsync_test::memory::managed);
  count_blocks_to_host<<<blocks, 32>>>(counter_word.get());
  umsync_test::check_launch("count_blocks_to_host");
  umsync::counter<umsync::system_visible> const finished{counter_word.get()};
  CHECK(finished.wait_for_at_least(blocks, 10s));
  UMSYNC_CUDA_CHECK(cudaDeviceSynchronize());
  CHECK(finished.load() == blocks);
  CHECK_FALSE(finished.wait_for_at_least(blocks + 1, 1ms));  // nothing more comes: the wait gives up
}

TEST_CASE("a running kernel and the host talk through system_visible flags in pinned memory")
{
  host_device_conversation(umsync_test::memory::pinned);
}

TEST_CASE("a running kernel and the host talk through system_visible flags in managed memory")
{
  host_device_conversation(umsync_test::memory::managed);
}
