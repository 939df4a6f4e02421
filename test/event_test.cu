// GPU tests of umsync/event.hpp (timed_event's: timed_event_test.cu).
#include "support/gpu_test.hpp"
#include "support/kernels.cuh"

#include <umsync/event.hpp>
#include <umsync/stream.hpp>

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
