// GPU tests of umsync/timed_event.hpp: differences of two events are std::chrono durations of
// device time; unfinished, unrecorded or moved-from events throw instead of timing. Its
// compile-time properties: timed_event_host_test.cpp.
#include "support/gpu_test.hpp"
#include "support/kernels.cuh"

#include <umsync/stream.hpp>
#include <umsync/timed_event.hpp>

#include <chrono>

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

TEST_CASE("timed_event takes the event options and still times: a blocking-sync pair measures a spin")
{
  umsync_test::memory_baseline const baseline;
  umsync::stream<> const s;
  umsync::timed_event start{{.blocking_sync = true}};
  umsync::timed_event stop{{.blocking_sync = true}};
  start.record(s);
  umsync_test::spin_for<<<1, 1, 0, s.view()>>>(5'000'000);  // 5 ms
  umsync_test::check_launch("spin_for");
  stop.record(s);
  stop.synchronize();
  umsync::timed_event::duration const elapsed = stop - start;
  MESSAGE("5 ms spin measured as " << elapsed.count() << " ms");
  CHECK(elapsed.count() >= 4.9F);
  CHECK(elapsed.count() < 1000.0F);
}

TEST_CASE("timing an event that was never recorded throws cuda_error; recorded, the pair times")
{
  umsync::stream<> const s;
  umsync::timed_event start;
  umsync::timed_event stop;
  start.record(s);
  s.synchronize();
  CHECK_THROWS_AS(static_cast<void>(stop - start), umsync::cuda_error);
  CHECK_THROWS_AS(static_cast<void>(umsync::timed_event::elapsed(stop, start)), umsync::cuda_error);
  stop.record(s);
  stop.synchronize();
  CHECK((stop - start).count() >= 0.0F);
}

TEST_CASE("a moved-from timed_event refuses timing with usage_error; the event it moved to times")
{
  umsync::stream<> const s;
  umsync::timed_event start;
  umsync::timed_event stop;
  start.record(s);
  stop.record(s);
  stop.synchronize();
  umsync::timed_event const moved_start = std::move(start);
  CHECK_THROWS_AS(static_cast<void>(stop - start), umsync::usage_error);  // NOLINT(bugprone-use-after-move)
  CHECK_THROWS_AS(static_cast<void>(start - stop), umsync::usage_error);  // NOLINT(bugprone-use-after-move)
  CHECK((stop - moved_start).count() >= 0.0F);
}
