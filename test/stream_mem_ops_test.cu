// GPU tests of umsync/stream_mem_ops.hpp. Every wait is guarded by a host watchdog: a stream
// that does not go on within 10 s fails the test (and, where the word is device memory, is
// released by writing the word from outside, so the suite goes on); one raw-CUDA probe of these
// calls hung once.
#include "support/gpu_test.hpp"
#include "support/kernels.cuh"
#include "support/sync_kernels.cuh"

#include <umsync/stream.hpp>
#include <umsync/stream_mem_ops.hpp>

#include <cuda/atomic>

#include <chrono>
#include <cstdint>
#include <thread>

namespace {

using namespace std::chrono_literals;

struct waiting {};
struct writing {};

__global__ void store_word(std::uint32_t* target, std::uint32_t value) { *target = value; }
__global__ void copy_word(std::uint32_t const* source, std::uint32_t* target) { *target = *source; }

/// Polls the stream until its work is done or `limit` passes.
bool finishes_within(cudaStream_t stream, std::chrono::milliseconds limit)
{
  auto const deadline = std::chrono::steady_clock::now() + limit;
  for (;;) {
    cudaError_t const status = cudaStreamQuery(stream);
    if (status == cudaSuccess) {
      return true;
    }
    if (status != cudaErrorNotReady) {
      umsync::check(status, "cudaStreamQuery");
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      return false;
    }
    std::this_thread::sleep_for(1ms);
  }
}

/// Watchdog release: writes `value` to a device word from a stream of its own.
void release_from_outside(std::uint64_t* word, std::uint64_t value)
{
  cudaStream_t rescue = nullptr;
  UMSYNC_CUDA_CHECK(cudaStreamCreateWithFlags(&rescue, cudaStreamNonBlocking));
  UMSYNC_CUDA_CHECK(cudaMemcpyAsync(word, &value, sizeof(value), cudaMemcpyHostToDevice, rescue));
  UMSYNC_CUDA_CHECK(cudaStreamSynchronize(rescue));
  UMSYNC_CUDA_CHECK(cudaStreamDestroy(rescue));
}

bool supported() { return umsync::capabilities(umsync::current_device()).stream_mem_ops_64bit; }

}  // namespace

TEST_CASE("a stream waits until another stream's write reaches at least the value, and sees its results")
{
  umsync_test::memory_baseline const baseline;
  if (!supported()) {
    MESSAGE("this device has no 64-bit stream memory operations");
    return;
  }
  auto rng = umsync_test::make_rng();
  auto const payload_value = static_cast<std::uint32_t>(rng() | 1U);
  umsync_test::sync_buffer<std::uint64_t> word(1, umsync_test::memory::device);
  umsync_test::sync_buffer<std::uint32_t> payload(1, umsync_test::memory::device);
  umsync_test::sync_buffer<std::uint32_t> seen(1, umsync_test::memory::device);
  umsync::stream<writing> const producer;
  umsync::stream<waiting> const consumer;
  // The producer's work is queued first, so no ordering of launches by a tool can deadlock.
  umsync_test::spin_for<<<1, 1, 0, producer.view()>>>(20'000'000);  // 20 ms: the consumer would run first
  store_word<<<1, 1, 0, producer.view()>>>(payload.get(), payload_value);
  umsync_test::check_launch("store_word");
  umsync::stream_write_value(producer, word.get(), 7);  // overshoots 5: at-least still releases
  umsync::stream_wait_at_least(consumer, word.get(), 5);
  copy_word<<<1, 1, 0, consumer.view()>>>(payload.get(), seen.get());
  umsync_test::check_launch("copy_word");
  bool const finished = finishes_within(consumer.get(), 10s);
  if (!finished) {
    release_from_outside(word.get(), 7);
  }
  CHECK_MESSAGE(finished, "the waiting stream did not go on within 10 s (released by the watchdog)");
  consumer.synchronize();
  producer.synchronize();
  CHECK(seen.download()[0] == payload_value);
  CHECK(word.download()[0] == 7U);
}

TEST_CASE("the host releases a waiting stream through a word in pinned memory")
{
  umsync_test::memory_baseline const baseline;
  if (!supported()) {
    MESSAGE("this device has no 64-bit stream memory operations");
    return;
  }
  umsync_test::sync_buffer<std::uint64_t> word(1, umsync_test::memory::pinned);
  umsync_test::sync_buffer<std::uint64_t> marker(1, umsync_test::memory::device);
  umsync::stream<waiting> const consumer;
  umsync::stream_wait_equal(consumer, word.get(), 3);  // the host stores 3, never more
  umsync::stream_write_value(consumer, marker.get(), 99);
  std::this_thread::sleep_for(50ms);
  CHECK(cudaStreamQuery(consumer.get()) == cudaErrorNotReady);  // still waiting for the host
  cuda::atomic_ref<std::uint64_t, cuda::thread_scope_system>(*word.get()).store(3, cuda::std::memory_order_release);
  bool const finished = finishes_within(consumer.get(), 10s);
  CHECK_MESSAGE(finished, "the stream did not see the host's store within 10 s");
  if (finished) {
    CHECK(marker.download()[0] == 99U);
  }
  consumer.synchronize();
}

TEST_CASE("stream memory operations refuse managed and pageable memory before queuing anything")
{
  umsync_test::warm_up_managed_memory();
  umsync_test::memory_baseline const baseline;
  if (!supported()) {
    MESSAGE("this device has no 64-bit stream memory operations");
    return;
  }
  umsync_test::sync_buffer<std::uint64_t> managed_word(1, umsync_test::memory::managed);
  std::uint64_t pageable_word = 0;
  umsync::stream<waiting> const s;
  CHECK_THROWS_AS(umsync::stream_wait_at_least(s, managed_word.get(), 1), umsync::usage_error);
  CHECK_THROWS_AS(umsync::stream_write_value(s, managed_word.get(), 1), umsync::usage_error);
  CHECK_THROWS_AS(umsync::stream_wait_at_least(s, &pageable_word, 1), umsync::usage_error);
  CHECK(s.ready());  // nothing was queued
}
