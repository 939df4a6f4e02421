// GPU tests of umsync/event.hpp.
#include "support/gpu_test.hpp"
#include "support/kernels.cuh"

#include <umsync/event.hpp>
#include <umsync/stream.hpp>
#include <umsync/timed_event.hpp>

#include <chrono>

TEST_CASE("an event has timing disabled, a timed_event has it")
{
  umsync_test::memory_baseline const baseline;
  umsync::stream<> const s;
  umsync::event plain_a;
  umsync::event plain_b;
  plain_a.record(s);
  plain_b.record(s);
  s.synchronize();
  float ms = 0;
  // The runtime refuses to time events created without timing: proof of the flag.
  CHECK(cudaEventElapsedTime(&ms, plain_a.get(), plain_b.get()) == cudaErrorInvalidResourceHandle);
  static_cast<void>(cudaGetLastError());
}

TEST_CASE("timed_event differences are chrono durations that measure device time")
{
  umsync_test::memory_baseline const baseline;
  umsync::stream<> const s;
  umsync::timed_event start;
  umsync::timed_event stop;
  start.record(s);
  umsync_test::spin_for<<<1, 1, 0, s.view()>>>(5'000'000);  // 5 ms
  umsync_test::check_launch("spin_for");
  stop.record(s);
  stop.synchronize();
  CHECK(stop.ready());
  std::chrono::duration<float, std::milli> const elapsed = stop - start;
  MESSAGE("5 ms spin measured as " << elapsed.count() << " ms");
  CHECK(elapsed.count() >= 4.9F);
  CHECK(elapsed.count() < 1000.0F);
  CHECK(umsync::timed_event::elapsed(start, stop) == elapsed);
}

TEST_CASE("timing an unfinished event throws cuda_error (not ready) and leaves both usable")
{
  umsync::stream<> const s;
  umsync::timed_event start;
  umsync::timed_event stop;
  start.record(s);
  umsync_test::spin_for<<<1, 1, 0, s.view()>>>(100'000'000);  // 100 ms
  umsync_test::check_launch("spin_for");
  stop.record(s);
  CHECK_FALSE(stop.ready());
  try {
    static_cast<void>(stop - start);
    FAIL("no throw");
  } catch (umsync::cuda_error const& e) {
    CHECK(e.code() == cudaErrorNotReady);
  }
  stop.synchronize();
  CHECK((stop - start).count() >= 99.0F);
}

TEST_CASE("a moved-from event refuses use")
{
  umsync::event a;
  umsync::event b = std::move(a);
  CHECK_THROWS_AS(static_cast<void>(a.get()), umsync::usage_error);  // NOLINT(bugprone-use-after-move)
  umsync::stream<> const s;
  b.record(s);
  b.synchronize();
  CHECK(b.ready());
}

TEST_CASE("blocking-sync and interprocess events can be made")
{
  umsync_test::memory_baseline const baseline;
  umsync::stream<> const s;
  umsync::event blocking{{.blocking_sync = true}};
  umsync::event ipc{{.interprocess = true}};
  blocking.record(s);
  ipc.record(s);
  blocking.synchronize();
  cudaIpcEventHandle_t handle{};
  CHECK(cudaIpcGetEventHandle(&handle, ipc.get()) == cudaSuccess);
}
