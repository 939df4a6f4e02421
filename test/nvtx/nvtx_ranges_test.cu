// GPU tests of umsync's NVTX ranges, built with UMSYNC_NVTX: a transfer, a share and a
// deferred edge on stream_edge<loader, compute>, a phase entry and a capture, each read back
// from the injection library of nvtx_injection.cpp with the name its tags give it.
#include "nvtx_record.hpp"
#include "support/gpu_test.hpp"

#include <umsync/graph/capture_scope.hpp>
#include <umsync/memory/managed_buffer.hpp>
#include <umsync/memory/stream_buffer.hpp>
#include <umsync/phase/phase_advisor.hpp>
#include <umsync/stream.hpp>
#include <umsync/stream_edge.hpp>

#include <string>
#include <utility>
#include <vector>

namespace {
using lines = std::vector<std::string>;

struct loader {};
struct compute {};
namespace model {
struct forward {};
struct weights {};
}  // namespace model

using plan = umsync::phase_plan<umsync::phase<model::forward, umsync::uses<model::weights, umsync::device_read>>>;

static_assert(umsync::detail::nvtx_build, "this test is built with UMSYNC_NVTX");
}  // namespace

TEST_CASE("transfers, edges, phase entries and captures are NVTX ranges named from their tags")
{
  auto& record = umsync_test::nvtx_record::open();  // before the first range of the process
  umsync::stream<loader> load;
  umsync::stream<compute> work;

  SUBCASE("a transfer and a share on stream_edge<loader, compute>")
  {
    umsync::stream_buffer<float, loader> moved(256, load);
    umsync::stream_buffer<float, loader> kept(256, load);
    umsync::stream_edge edge(load, work);
    record.take();
    auto on_compute = edge.transfer(std::move(moved));
    auto view = edge.share(kept);
    REQUIRE_MESSAGE(record.loaded(), "the injection library did not load: " << UMSYNC_NVTX_INJECTION);
    CHECK(record.take() == lines{"push umsync: umsync transfer loader -> compute", "pop umsync",
                                 "push umsync: umsync share loader -> compute", "pop umsync"});
    umsync::stream_edge(work, load).edge();
    CHECK(record.take() == lines{"push umsync: umsync edge compute -> loader", "pop umsync"});
    static_cast<void>(view);
    work.synchronize();
  }

  SUBCASE("a deferred edge's record and wait")
  {
    umsync::stream_edge slot_free(work, load, umsync::deferred);
    record.take();
    slot_free.record();
    slot_free.wait();
    CHECK(record.take() == lines{"push umsync: umsync record compute -> loader", "pop umsync",
                                 "push umsync: umsync wait compute -> loader", "pop umsync"});
  }

  SUBCASE("a phase is a range from its entry to the end of its scope")
  {
    umsync::managed_buffer<float> weights(1024);
    auto advisor = umsync::make_phase_advisor<plan>(umsync::bind_buffer<model::weights>(weights));
    record.take();
    {
      auto scope = advisor.enter<model::forward>(work);
      CHECK(record.take() == lines{"push umsync: umsync phase model::forward"});
    }
    CHECK(record.take() == lines{"pop umsync"});
    work.synchronize();
  }

  SUBCASE("a capture is a range from its begin to its end, or to its discard")
  {
    record.take();
    umsync::graph captured = [&] {
      umsync::capture_scope scope(work);
      CHECK(record.take() == lines{"push umsync: umsync capture compute"});
      return scope.end();
    }();
    CHECK(record.take() == lines{"pop umsync"});
    {
      umsync::capture_scope scope(load);
    }
    CHECK(record.take() == lines{"push umsync: umsync capture loader", "pop umsync"});
  }
  load.synchronize();
  work.synchronize();
}
