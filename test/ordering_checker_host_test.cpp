// Tests of umsync/detail/debug/ordering_checker.hpp: the bookkeeping alone, with made-up
// stream, event and memory addresses (no GPU). Also built with ThreadSanitizer.
#include <doctest/doctest.h>
#include <umsync/detail/debug/ordering_checker.hpp>

#include <string>
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
    CHECK(e.earlier().operation == "write");
    CHECK(e.earlier().where.line() == write_line);
    CHECK(e.later().stream == &stream_b);
    CHECK(e.later().operation == "read");
    CHECK(e.later().where.line() == read_line);
    CHECK(std::string(e.what()).find("stream_dependency") != std::string::npos);
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
