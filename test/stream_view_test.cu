// GPU tests of umsync/stream_view.hpp: a view adopts a stream made elsewhere and its calls act on
// that stream; it converts to the raw handle and to cuda::stream_ref; the default streams are
// reached by name. Its compile-time properties: stream_view_host_test.cpp; the null handle in
// UMSYNC_DEBUG builds: stream_view_debug_host_test.cpp; synchronize() and ready() during a
// capture: capture/capture_status_test.cu.
#include "support/gpu_test.hpp"
#include "support/kernels.cuh"

#include <cuda/stream_ref>
#include <umsync/event.hpp>
#include <umsync/stream.hpp>
#include <umsync/stream_view.hpp>

#include <cstdint>

namespace {
struct producer {};
struct adopted {};

/// A stream made by the raw runtime, as a library or framework would make one.
class raw_stream {
 public:
  explicit raw_stream(int priority)
  {
    UMSYNC_CUDA_CHECK(cudaStreamCreateWithPriority(&handle_, cudaStreamNonBlocking, priority));
  }
  raw_stream(raw_stream const&) = delete;
  raw_stream& operator=(raw_stream const&) = delete;
  ~raw_stream() { umsync::detail::report_in_destructor(cudaStreamDestroy(handle_), "cudaStreamDestroy"); }
  [[nodiscard]] cudaStream_t get() const noexcept { return handle_; }

 private:
  cudaStream_t handle_ = nullptr;
};
}  // namespace

TEST_CASE("views convert to the raw handle and to cuda::stream_ref")
{
  umsync::stream<producer> const s;
  umsync::stream_view<producer> const v = s;
  cudaStream_t const raw = v;
  cuda::stream_ref const ref = v;
  CHECK(raw == s.get());
  CHECK(ref.get() == s.get());
  CHECK(v == s.view());
}

TEST_CASE("the legacy default stream is reachable only by name, and works")
{
  auto const legacy = umsync::legacy_default_stream();
  umsync_test::spin_for<<<1, 1, 0, legacy>>>(1000);
  umsync_test::check_launch("spin_for");
  legacy.synchronize();
  CHECK(legacy.ready());
}

TEST_CASE("a view of a stream made elsewhere queries, synchronizes and reports the priority of that stream")
{
  umsync_test::memory_baseline const baseline;
  int least = 0;
  int greatest = 0;
  UMSYNC_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
  raw_stream const raw(greatest);
  umsync::stream_view<adopted> const view{raw.get()};
  CHECK(view.get() == raw.get());
  CHECK(view.priority() == greatest);
  umsync_test::spin_for<<<1, 1, 0, raw.get()>>>(50'000'000);  // 50 ms, queued on the raw handle
  umsync_test::check_launch("spin_for");
  CHECK_FALSE(view.ready());
  view.synchronize();
  CHECK(view.ready());
  CHECK(cudaStreamQuery(raw.get()) == cudaSuccess);
}

TEST_CASE("wait(e) orders the view's later work after the event's work on another stream")
{
  umsync_test::memory_baseline const baseline;
  umsync::stream<producer> const slow;
  raw_stream const raw(0);
  umsync::stream_view<adopted> const view{raw.get()};
  umsync::event produced;
  umsync::event consumed;
  umsync_test::spin_for<<<1, 1, 0, slow.view()>>>(50'000'000);  // 50 ms
  umsync_test::check_launch("spin_for");
  produced.record(slow);
  view.wait(produced);
  consumed.record(view);  // work of the view's queued after the wait: done only after the spin
  CHECK_FALSE(consumed.ready());
  consumed.synchronize();
  CHECK(produced.ready());  // the view's work finished, so the event it waited for had too
  CHECK(view.ready());
}

TEST_CASE("the per-thread default stream is reachable by name, and works")
{
  auto const per_thread = umsync::per_thread_default_stream<adopted>();
  umsync_test::spin_for<<<1, 1, 0, per_thread>>>(10'000'000);  // 10 ms
  umsync_test::check_launch("spin_for");
  CHECK_FALSE(per_thread.ready());
  per_thread.synchronize();
  CHECK(per_thread.ready());
}
