// Host tests of umsync/detail/nvtx.hpp and umsync/nvtx.hpp, built with UMSYNC_NVTX: the names made from tag types
// (a plain struct, one in a namespace, a template instance, one in an anonymous namespace, a tag
// with its own name), and the ranges themselves, read back from a real NVTX tool: the
// injection library of nvtx_injection.cpp, loaded by the nvtx3 headers as Nsight Systems' is.
#include "nvtx_record.hpp"

#include <doctest/doctest.h>
#include <umsync/detail/nvtx.hpp>
#include <umsync/nvtx.hpp>

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

struct plain {};
namespace app {
struct loader {};
namespace io {
struct compute {};
}  // namespace io
template <int Slot>
struct slot {};
}  // namespace app
template <class T>
struct box {};
namespace {
struct hidden {};
}  // namespace
struct forward {
  static constexpr char const* name = "forward pass";  // as phase plans print it
};

namespace {
namespace detail = umsync::detail;
namespace words = umsync::detail::nvtx_words;
using lines = std::vector<std::string>;

static_assert(detail::nvtx_build, "this test is built with UMSYNC_NVTX");
// The names are made at compile time.
static_assert(detail::nvtx_name<words::transfer, app::loader, app::io::compute>::view() ==
              "umsync transfer app::loader -> app::io::compute");
static_assert(detail::nvtx_name<words::capture, app::slot<3>>::view() == "umsync capture app::slot<3>");
static_assert(detail::nvtx_name<words::phase, hidden>::view() == "umsync phase hidden");
static_assert(detail::nvtx_name<words::phase, forward>::view() == "umsync phase forward pass");
static_assert(detail::nvtx_name<words::capture, plain>::text.back() == '\0');

/// Opens the injection before any test makes a range (doctest runs the file's tests in order,
/// and none makes one before it asks for the record).
umsync_test::nvtx_record& record() { return umsync_test::nvtx_record::open(); }

}  // namespace

TEST_CASE("a tag's name is the user's spelling of it")
{
  CHECK(detail::type_name_of<plain>() == "plain");
  CHECK(detail::type_name_of<app::loader>() == "app::loader");
  CHECK(detail::type_name_of<app::io::compute>() == "app::io::compute");
  CHECK(detail::type_name_of<app::slot<3>>() == "app::slot<3>");
  CHECK(detail::type_name_of<box<app::loader>>() == "box<app::loader>");
  CHECK(detail::type_name_of<box<hidden>>() == "box<hidden>");  // the anonymous scope is left out
  CHECK(detail::type_name_of<hidden>() == "hidden");
  CHECK(detail::type_name_of<forward>() == "forward pass");
  CHECK(detail::type_name_of<int const*>() == "const int*");
}

TEST_CASE("range names: one tag, or two joined by an arrow")
{
  CHECK(detail::nvtx_name<words::capture, plain>::view() == "umsync capture plain");
  CHECK(detail::nvtx_name<words::edge, app::loader, box<hidden>>::view() == "umsync edge app::loader -> box<hidden>");
  CHECK(std::string(detail::nvtx_name<words::wait, plain, app::slot<7>>::text.data()) ==
        "umsync wait plain -> app::slot<7>");
}

TEST_CASE("the ranges reach an NVTX tool, in the umsync domain, with their names")
{
  auto& ranges = record();
  {
    detail::nvtx_range<words::transfer, app::loader, app::io::compute> const outer;
    detail::nvtx_range<words::phase, forward> const inner;
  }
  REQUIRE_MESSAGE(ranges.loaded(), "the injection library did not load: " << UMSYNC_NVTX_INJECTION);
  CHECK(ranges.take() == lines{"push umsync: umsync transfer app::loader -> app::io::compute",
                               "push umsync: umsync phase forward pass", "pop umsync", "pop umsync"});

  // A lifetime range: popped by its owner once kept, here if the opening throws first.
  {
    detail::nvtx_opening<words::capture, app::slot<2>> opening;
    opening.keep();
  }
  CHECK(ranges.take() == lines{"push umsync: umsync capture app::slot<2>"});
  detail::nvtx_pop();
  CHECK(ranges.take() == lines{"pop umsync"});
  CHECK_THROWS_AS(([] {
                    detail::nvtx_opening<words::capture, plain> opening;
                    throw std::runtime_error("the capture did not begin");
                  }()),
                  std::runtime_error);
  CHECK(ranges.take() == lines{"push umsync: umsync capture plain", "pop umsync"});

  // A name known at run time only: a user's own scope, around one of umsync's ranges; the name's
  // storage may end before the scope does.
  {
    std::optional<umsync::nvtx_scope> step;
    step.emplace(std::string("training step ").append("3").c_str());
    detail::nvtx_range<words::phase, forward> const inner;
  }
  CHECK(ranges.take() ==
        lines{"push umsync: training step 3", "push umsync: umsync phase forward pass", "pop umsync", "pop umsync"});
}
