// Tests of umsync/detail/debug/ordering_checker.hpp: the bookkeeping alone, with made-up
// stream, event and memory addresses (no GPU). Also built with ThreadSanitizer.
#include <doctest/doctest.h>
#include <umsync/detail/debug/ordering_checker.hpp>

#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace {

using umsync::detail::debug::access;
using umsync::detail::debug::ordering_checker;

// Distinct addresses standing for streams, events and buffers.
char stream_a;
char stream_b;
char stream_c;
char event_1;
char event_2;
char buffer_x;

struct fresh_checker {
  ordering_checker checker;
};

}  // namespace

TEST_CASE_FIXTURE(fresh_checker, "uses on one stream are always ordered")
{
  checker.on_access(&buffer_x, &stream_a, access::write);
  checker.on_access(&buffer_x, &stream_a, access::read);
  checker.on_access(&buffer_x, &stream_a, access::write);
  CHECK_NOTHROW(checker.on_access(&buffer_x, &stream_a, access::free));
}

TEST_CASE_FIXTURE(fresh_checker, "a read on another stream without an edge is reported with both sites")
{
  unsigned const write_line = std::source_location::current().line() + 1;
  checker.on_access(&buffer_x, &stream_a, access::write);
  unsigned const read_line = std::source_location::current().line() + 2;
  try {
    checker.on_access(&buffer_x, &stream_b, access::read);
    FAIL("no ordering_error");
  } catch (umsync::ordering_error const& e) {
    CHECK(e.earlier().stream == &stream_a);
    CHECK(std::string_view(e.earlier().operation) == "write");
    CHECK(e.earlier().where.line() == write_line);
    CHECK(e.later().stream == &stream_b);
    CHECK(std::string_view(e.later().operation) == "read");
    CHECK(e.later().where.line() == read_line);
    CHECK(std::string(e.what()).find("stream_edge") != std::string::npos);
  }
}

TEST_CASE_FIXTURE(fresh_checker, "an event edge orders the streams; an edge recorded too early does not")
{
  checker.on_record(&event_1, &stream_a);  // before the write: orders nothing of it
  checker.on_access(&buffer_x, &stream_a, access::write);
  checker.on_wait(&stream_b, &event_1);
  CHECK_THROWS_AS(checker.on_access(&buffer_x, &stream_b, access::read), umsync::ordering_error);
  checker.on_record(&event_2, &stream_a);  // after the write
  checker.on_wait(&stream_b, &event_2);
  CHECK_NOTHROW(checker.on_access(&buffer_x, &stream_b, access::read));
}

TEST_CASE_FIXTURE(fresh_checker, "edges compose: a to b to c orders a's write before c's read")
{
  checker.on_access(&buffer_x, &stream_a, access::write);
  checker.on_record(&event_1, &stream_a);
  checker.on_wait(&stream_b, &event_1);
  checker.on_record(&event_2, &stream_b);
  checker.on_wait(&stream_c, &event_2);
  CHECK_NOTHROW(checker.on_access(&buffer_x, &stream_c, access::read));
}

TEST_CASE_FIXTURE(fresh_checker, "reads on several streams may run together; a write must follow all of them")
{
  checker.on_access(&buffer_x, &stream_a, access::write);
  checker.on_record(&event_1, &stream_a);
  checker.on_wait(&stream_b, &event_1);
  checker.on_wait(&stream_c, &event_1);
  checker.on_access(&buffer_x, &stream_b, access::read);
  checker.on_access(&buffer_x, &stream_c, access::read);
  // Back on a: only b joined so far, c's read is unordered with a new write.
  checker.on_record(&event_2, &stream_b);
  checker.on_wait(&stream_a, &event_2);
  CHECK_THROWS_AS(checker.on_access(&buffer_x, &stream_a, access::write), umsync::ordering_error);
  checker.on_record(&event_2, &stream_c);
  checker.on_wait(&stream_a, &event_2);
  CHECK_NOTHROW(checker.on_access(&buffer_x, &stream_a, access::write));
}

TEST_CASE_FIXTURE(fresh_checker, "a free is a write: freeing under another stream's read is reported")
{
  checker.on_access(&buffer_x, &stream_a, access::write);
  checker.on_record(&event_1, &stream_a);
  checker.on_wait(&stream_b, &event_1);
  checker.on_access(&buffer_x, &stream_b, access::read);
  CHECK_THROWS_AS(checker.on_access(&buffer_x, &stream_a, access::free), umsync::ordering_error);
}

TEST_CASE_FIXTURE(fresh_checker, "host synchronization orders what the host issues afterwards")
{
  checker.on_access(&buffer_x, &stream_a, access::write);
  checker.on_host_waited_for_stream(&stream_a);
  CHECK_NOTHROW(checker.on_access(&buffer_x, &stream_b, access::write));
  checker.on_record(&event_1, &stream_b);
  checker.on_host_waited_for_event(&event_1);
  CHECK_NOTHROW(checker.on_access(&buffer_x, &stream_c, access::read));
}

TEST_CASE_FIXTURE(fresh_checker, "freed memory is forgotten: its address may return as new memory")
{
  checker.on_access(&buffer_x, &stream_a, access::write);
  checker.on_access(&buffer_x, &stream_a, access::free);
  CHECK_NOTHROW(checker.on_access(&buffer_x, &stream_b, access::write));
}

TEST_CASE_FIXTURE(fresh_checker, "many host threads may use the checker at once")
{
  constexpr int threads = 4;
  constexpr int rounds = 2000;
  std::vector<char> streams(threads);
  std::vector<char> events(threads);
  std::vector<char> buffers(threads);
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      for (int i = 0; i < rounds; ++i) {
        checker.on_access(&buffers[t], &streams[t], access::write);
        checker.on_record(&events[t], &streams[t]);
        checker.on_wait(&streams[(t + 1) % threads], &events[t]);
        checker.on_host_waited_for_event(&events[t]);
      }
    });
  }
  for (auto& worker : workers) {
    worker.join();
  }
  for (int t = 0; t < threads; ++t) {
    checker.on_host_waited_for_stream(&streams[t]);
  }
  CHECK_NOTHROW(checker.on_access(&buffers[0], &streams[1], access::read));
}

// The allocation registry: umsync's buffers register the address range of each allocation, so
// sub-ranges of one buffer and raw pointers into it are checked as that buffer.
namespace {
alignas(64) char allocation_a[256];
alignas(64) char allocation_b[256];
}  // namespace

TEST_CASE_FIXTURE(fresh_checker, "sub-ranges of one allocation conflict where they overlap and not elsewhere")
{
  checker.on_allocate(allocation_a, sizeof allocation_a);
  unsigned const write_line = std::source_location::current().line() + 1;
  checker.on_access(allocation_a, 128, &stream_a, access::write);  // the first half, on a
  // The second half on b: disjoint, so nothing to order.
  CHECK_NOTHROW(checker.on_access(allocation_a + 128, 128, &stream_b, access::write));
  // A sub-range that overlaps the first half, starting elsewhere: related to a's write.
  try {
    checker.on_access(allocation_a + 64, 16, &stream_c, access::read);
    FAIL("no ordering_error");
  } catch (umsync::ordering_error const& e) {
    CHECK(e.earlier().stream == &stream_a);
    CHECK(e.earlier().where.line() == write_line);
    CHECK(e.later().stream == &stream_c);
  }
  // After an edge from a, c reads it; the whole allocation on c also waits for b's half.
  checker.on_record(&event_1, &stream_a);
  checker.on_wait(&stream_c, &event_1);
  CHECK_NOTHROW(checker.on_access(allocation_a + 64, 16, &stream_c, access::read));
  CHECK_THROWS_AS(checker.on_access(allocation_a, sizeof allocation_a, &stream_c, access::read),
                  umsync::ordering_error);
  checker.on_record(&event_2, &stream_b);
  checker.on_wait(&stream_c, &event_2);
  CHECK_NOTHROW(checker.on_access(allocation_a, sizeof allocation_a, &stream_c, access::read));
}

TEST_CASE_FIXTURE(fresh_checker, "a raw pointer into an allocation is checked as the rest of it; others pass")
{
  checker.on_allocate(allocation_a, sizeof allocation_a);
  checker.on_access(allocation_a, sizeof allocation_a, &stream_a, access::write);
  // data() + 32 on another stream, no edge: reported, naming both streams.
  try {
    static_cast<void>(checker.on_pointer_access(allocation_a + 32, &stream_b, access::write));
    FAIL("no ordering_error");
  } catch (umsync::ordering_error const& e) {
    CHECK(e.earlier().stream == &stream_a);
    CHECK(std::string_view(e.earlier().operation) == "write");
    CHECK(e.later().stream == &stream_b);
    CHECK(std::string_view(e.later().operation) == "write");
  }
  // A pointer no allocation holds passes, unchecked, whatever happened to it.
  checker.on_access(allocation_b, sizeof allocation_b, &stream_a, access::write);
  CHECK_FALSE(checker.on_pointer_access(allocation_b, &stream_b, access::write));
  CHECK_FALSE(checker.on_pointer_access(nullptr, &stream_b, access::write));
  // With the edge the raw pointer is accepted, and later uses are ordered after it.
  checker.on_record(&event_1, &stream_a);
  checker.on_wait(&stream_b, &event_1);
  CHECK(checker.on_pointer_access(allocation_a + 32, &stream_b, access::write));
  CHECK_THROWS_AS(checker.on_access(allocation_a + 200, 8, &stream_a, access::read), umsync::ordering_error);
  // The pointer covers the rest of the allocation, not what lies before it.
  CHECK_NOTHROW(checker.on_access(allocation_a, 32, &stream_a, access::read));
  // One past the end is not in the allocation.
  CHECK_FALSE(checker.on_pointer_access(allocation_a + sizeof allocation_a, &stream_c, access::write));
}

TEST_CASE_FIXTURE(fresh_checker, "reads of one allocation on two streams may run together; a raw read counts as read")
{
  checker.on_allocate(allocation_a, sizeof allocation_a);
  checker.on_access(allocation_a, sizeof allocation_a, &stream_a, access::write);
  checker.on_record(&event_1, &stream_a);
  checker.on_wait(&stream_b, &event_1);
  checker.on_wait(&stream_c, &event_1);
  CHECK(checker.on_pointer_access(allocation_a, &stream_b, access::read));
  CHECK_NOTHROW(checker.on_access(allocation_a + 16, 16, &stream_c, access::read));
  // Back on a, without joining the readers: a write races with both.
  CHECK_THROWS_AS(checker.on_access(allocation_a, 8, &stream_a, access::write), umsync::ordering_error);
}

TEST_CASE_FIXTURE(fresh_checker, "a new allocation forgets what was known of its addresses; a free forgets its uses")
{
  // Before umsync allocated there (memory it did not track, or reused memory): stale uses.
  checker.on_access(allocation_a + 16, 8, &stream_a, access::write);
  checker.on_allocate(allocation_a, sizeof allocation_a);
  CHECK(checker.tracks(allocation_a + 16));
  CHECK_FALSE(checker.tracks(allocation_b));
  CHECK_NOTHROW(checker.on_access(allocation_a + 16, 8, &stream_b, access::write));
  // Freed (cudaFree: no stream), then the same addresses come back as new memory elsewhere.
  checker.on_deallocate(allocation_a);
  CHECK_FALSE(checker.tracks(allocation_a + 16));
  checker.on_allocate(allocation_a, 64);
  CHECK_NOTHROW(checker.on_access(allocation_a, 64, &stream_c, access::write));
  // An allocation that overlaps one still registered replaces it (its free was missed).
  checker.on_allocate(allocation_a + 32, 128);
  CHECK_FALSE(checker.tracks(allocation_a));
  CHECK(checker.tracks(allocation_a + 100));
  CHECK_NOTHROW(checker.on_access(allocation_a + 32, 8, &stream_a, access::write));
}

TEST_CASE_FIXTURE(fresh_checker, "a write that covers earlier uses replaces them without hiding a conflict")
{
  checker.on_allocate(allocation_a, sizeof allocation_a);
  checker.on_access(allocation_a, 64, &stream_a, access::write);
  checker.on_record(&event_1, &stream_a);
  checker.on_wait(&stream_b, &event_1);
  checker.on_access(allocation_a, 64, &stream_b, access::read);  // b reads a's result
  checker.on_record(&event_2, &stream_b);
  checker.on_wait(&stream_a, &event_2);
  checker.on_access(allocation_a, sizeof allocation_a, &stream_a, access::write);  // joined: covers both uses
  // c is ordered after a's first write only (event_1): the later write is not ordered for it.
  checker.on_wait(&stream_c, &event_1);
  CHECK_THROWS_AS(checker.on_access(allocation_a + 8, 8, &stream_c, access::read), umsync::ordering_error);
  checker.on_record(&event_1, &stream_a);
  checker.on_wait(&stream_c, &event_1);
  CHECK_NOTHROW(checker.on_access(allocation_a + 8, 8, &stream_c, access::read));
}

TEST_CASE_FIXTURE(fresh_checker, "a free of a tracked allocation is checked over its whole range")
{
  checker.on_allocate(allocation_a, sizeof allocation_a);
  checker.on_access(allocation_a, sizeof allocation_a, &stream_a, access::write);
  checker.on_record(&event_1, &stream_a);
  checker.on_wait(&stream_b, &event_1);
  checker.on_access(allocation_a + 200, 8, &stream_b, access::read);  // a subspan lent to b
  CHECK_THROWS_AS(checker.on_access(allocation_a, sizeof allocation_a, &stream_a, access::free),
                  umsync::ordering_error);
  checker.on_record(&event_2, &stream_b);
  checker.on_wait(&stream_a, &event_2);
  CHECK_NOTHROW(checker.on_access(allocation_a, sizeof allocation_a, &stream_a, access::free));
  checker.on_deallocate(allocation_a);
  CHECK_FALSE(checker.tracks(allocation_a));
}

// Whole-device synchronization (umsync::synchronize_device): PyTorch CSAN's two scenarios, then
// what limits the join.
namespace {
bool every_stream(void const*) { return true; }
}  // namespace

TEST_CASE_FIXTURE(fresh_checker, "after a whole-device synchronization another stream's use is ordered")
{
  alignas(8) char buffer_y = 0;
  checker.on_access(&buffer_x, &stream_a, access::write);
  checker.on_access(&buffer_y, &stream_b, access::read);
  CHECK_THROWS_AS(checker.on_access(&buffer_x, &stream_c, access::read), umsync::ordering_error);
  CHECK_THROWS_AS(checker.on_access(&buffer_y, &stream_c, access::write), umsync::ordering_error);
  checker.on_device_synchronized(every_stream, true);
  CHECK_NOTHROW(checker.on_access(&buffer_x, &stream_c, access::write));  // both are done
  CHECK_NOTHROW(checker.on_access(&buffer_y, &stream_c, access::write));
  // Only what was enqueued before the synchronization: a's next read still races with c's write.
  CHECK_THROWS_AS(checker.on_access(&buffer_x, &stream_a, access::read), umsync::ordering_error);
}

TEST_CASE_FIXTURE(fresh_checker, "a stream first seen after a whole-device synchronization is ordered after it")
{
  char late_stream = 0;
  checker.on_access(&buffer_x, &stream_a, access::write);
  CHECK_THROWS_AS(checker.on_access(&buffer_x, &late_stream, access::read), umsync::ordering_error);
  checker.reset();
  checker.on_access(&buffer_x, &stream_a, access::write);
  checker.on_device_synchronized(every_stream, true);
  CHECK_NOTHROW(checker.on_access(&buffer_x, &late_stream, access::read));
}

TEST_CASE_FIXTURE(fresh_checker, "a whole-device synchronization joins the streams of that device only")
{
  alignas(8) char buffer_y = 0;
  checker.on_access(&buffer_x, &stream_a, access::write);
  checker.on_access(&buffer_y, &stream_b, access::write);  // b: another device
  checker.on_device_synchronized([](void const* stream) { return stream == &stream_a; }, false);
  CHECK_NOTHROW(checker.on_access(&buffer_x, &stream_c, access::read));
  CHECK_THROWS_AS(checker.on_access(&buffer_y, &stream_c, access::read), umsync::ordering_error);
}

TEST_CASE_FIXTURE(fresh_checker, "a destroyed stream's work is joined by a whole-device synchronization on one device")
{
  checker.on_access(&buffer_x, &stream_a, access::write);
  checker.forget_stream(&stream_a);  // cudaStreamDestroy: the write still runs
  CHECK_THROWS_AS(checker.on_access(&buffer_x, &stream_b, access::read), umsync::ordering_error);
  checker.on_device_synchronized(every_stream, false);  // several devices: its device is unknown
  CHECK_THROWS_AS(checker.on_access(&buffer_x, &stream_b, access::read), umsync::ordering_error);
  checker.on_device_synchronized(every_stream, true);
  CHECK_NOTHROW(checker.on_access(&buffer_x, &stream_b, access::read));
}

TEST_CASE_FIXTURE(fresh_checker, "the host's write of memory a stream still reads is reported until the host waits")
{
  checker.on_access(&buffer_x, &stream_a, access::read);  // an async copy from a staging slot
  unsigned const host_line = std::source_location::current().line() + 2;
  try {
    checker.on_access(&buffer_x, 1, ordering_checker::host, access::write);
    FAIL("no ordering_error");
  } catch (umsync::ordering_error const& e) {
    CHECK(e.earlier().stream == &stream_a);
    CHECK(std::string_view(e.earlier().operation) == "read");
    CHECK(e.later().stream == nullptr);
    CHECK(std::string_view(e.later().operation) == "write");
    CHECK(e.later().where.line() == host_line);
    std::string const what = e.what();
    CHECK(what.find("write on the host at") != std::string::npos);
    CHECK(what.find("umsync::synchronize_device()") != std::string::npos);
    CHECK(what.find("raw cudaDeviceSynchronize()") != std::string::npos);
  }
  checker.on_record(&event_1, &stream_a);
  checker.on_host_waited_for_event(&event_1);
  CHECK_NOTHROW(checker.on_access(&buffer_x, 1, ordering_checker::host, access::write));
  // Work the host issues after its write is ordered after it, on any stream.
  CHECK_NOTHROW(checker.on_access(&buffer_x, &stream_b, access::read));
  CHECK_THROWS_AS(checker.on_access(&buffer_x, 1, ordering_checker::host, access::write), umsync::ordering_error);
  checker.on_device_synchronized(every_stream, true);
  CHECK_NOTHROW(checker.on_access(&buffer_x, 1, ordering_checker::host, access::write));
}

TEST_CASE_FIXTURE(fresh_checker, "the legacy default stream synchronizes with blocking streams, not with others")
{
  void const* const legacy = static_cast<void const*>(cudaStreamLegacy);
  alignas(8) char buffer_y = 0;
  checker.on_blocking_stream(&stream_a);
  checker.on_access(&buffer_x, &stream_a, access::write);
  checker.on_access(&buffer_y, &stream_b, access::write);  // b is non-blocking
  CHECK_NOTHROW(checker.on_access(&buffer_x, legacy, access::read));
  CHECK_THROWS_AS(checker.on_access(&buffer_y, legacy, access::read), umsync::ordering_error);
  // The other way: a blocking stream's later work waits for the legacy stream's.
  checker.on_access(&buffer_x, legacy, access::write);
  CHECK_NOTHROW(checker.on_access(&buffer_x, &stream_a, access::read));
  CHECK_THROWS_AS(checker.on_access(&buffer_x, &stream_b, access::read), umsync::ordering_error);
  // A destroyed blocking stream's address may come back as a non-blocking stream.
  checker.on_host_waited_for_stream(&stream_a);
  checker.forget_stream(&stream_a);
  checker.on_access(&buffer_x, legacy, access::write);
  CHECK_THROWS_AS(checker.on_access(&buffer_x, &stream_a, access::read), umsync::ordering_error);
}

TEST_CASE_FIXTURE(fresh_checker, "an independent claim on memory the dependent launch may overlap is reported")
{
  // A plain launch on stream a writes x; the dependent launch after it claims x independent.
  checker.on_launch(&stream_a, false);
  unsigned const write_line = std::source_location::current().line() + 1;
  checker.on_access(&buffer_x, &stream_a, access::write);
  checker.on_launch_end(&stream_a);
  checker.on_launch(&stream_a, true);
  try {
    checker.check_independent_claim(&buffer_x, 1, &stream_a, access::write, std::source_location::current());
    FAIL("no usage_error");
  } catch (umsync::usage_error const& e) {
    std::string const what = e.what();
    CHECK(what.find("an independent<T> parameter writes memory that earlier work on the stream, which this "
                    "dependent launch may overlap, writes (at ") != std::string::npos);
    CHECK(what.find(":" + std::to_string(write_line)) != std::string::npos);
    CHECK(what.find("declare the parameter pending<T>") != std::string::npos);
  }
  // A read claim conflicts with the write too; the same claim on other memory does not.
  CHECK_THROWS_AS(checker.check_independent_claim(&buffer_x, 1, &stream_a, access::read, {}), umsync::usage_error);
  CHECK_NOTHROW(checker.check_independent_claim(&stream_c, 1, &stream_a, access::write, {}));
  checker.on_launch_end(&stream_a);
}

TEST_CASE_FIXTURE(fresh_checker, "an independent claim holds after a host wait, a plain launch or a copy between")
{
  auto primary_writes_x = [&] {
    checker.on_launch(&stream_a, false);
    checker.on_access(&buffer_x, &stream_a, access::write);
    checker.on_launch_end(&stream_a);
  };
  auto claim_x = [&] {
    checker.on_launch(&stream_a, true);
    checker.check_independent_claim(&buffer_x, 1, &stream_a, access::write, {});
    checker.on_launch_end(&stream_a);
  };
  primary_writes_x();
  checker.on_host_waited_for_stream(&stream_a);
  CHECK_NOTHROW(claim_x());
  primary_writes_x();
  checker.on_launch(&stream_a, false);  // a plain launch between: the dependent overlaps it only
  checker.on_access(&event_2, &stream_a, access::write);
  checker.on_launch_end(&stream_a);
  CHECK_NOTHROW(claim_x());
  primary_writes_x();
  checker.on_access(&event_1, &stream_a, access::write);  // a copy between: complete before any later kernel
  CHECK_NOTHROW(claim_x());
  // A plain launch's independent<T> is not checked: it overlaps nothing.
  primary_writes_x();
  checker.on_launch(&stream_a, false);
  CHECK_NOTHROW(checker.check_independent_claim(&buffer_x, 1, &stream_a, access::write, {}));
  checker.on_launch_end(&stream_a);
}

TEST_CASE_FIXTURE(fresh_checker, "a chain of dependent launches overlaps back to the last plain launch")
{
  checker.on_launch(&stream_a, false);
  checker.on_access(&buffer_x, &stream_a, access::read);
  checker.on_launch_end(&stream_a);
  checker.on_launch(&stream_a, true);  // may start while the plain launch still reads x
  checker.on_access(&event_1, &stream_a, access::write);
  checker.on_launch_end(&stream_a);
  checker.on_launch(&stream_a, true);  // may start while the first dependent runs, and so the plain one
  CHECK_NOTHROW(checker.check_independent_claim(&buffer_x, 1, &stream_a, access::read, {}));  // reads together
  CHECK_THROWS_AS(checker.check_independent_claim(&buffer_x, 1, &stream_a, access::write, {}), umsync::usage_error);
  // Work on another stream is the ordering check's, not the claim's.
  CHECK_NOTHROW(checker.check_independent_claim(&buffer_x, 1, &stream_b, access::write, {}));
  checker.on_launch_end(&stream_a);
}
