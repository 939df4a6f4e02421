// Host tests of the UMSYNC_DEBUG checks that need no device: a moved-from buffer refused by the
// memory protocol (and told apart from a buffer of zero elements, which allocates nothing), and
// a raw pointer into memory umsync allocated, passed to umsync::launch on another stream (a null
// cudaStream_t adopted at run time: stream_view_debug_host_test.cpp). Every refusal here happens
// before any CUDA call. The
// same checks on the GPU, with real allocations: test/usage_debug_test.cu and
// detail/debug/ordering_checker_debug_test.cu.
#include <doctest/doctest.h>
#include <umsync/umsync.hpp>

#include <cstddef>
#include <source_location>
#include <span>
#include <string>
#include <utility>

static_assert(umsync::debug_build, "this file is built with UMSYNC_DEBUG");

namespace {
struct compute {};

// Stand-ins for kernels: no case here reaches cudaLaunchKernel with them.
void writes(float*, std::size_t) {}
void reads(float const*, std::size_t) {}

struct ignore_release {
  void operator()(int) const noexcept {}
};
using handle = umsync::detail::unique_handle<int, ignore_release>;

}  // namespace

TEST_CASE("unique_handle remembers being moved from in debug builds, and only that")
{
  handle const never_owned;
  CHECK(never_owned.empty());
  CHECK_FALSE(never_owned.moved_from());  // empty from the start: legitimately empty
  CHECK_NOTHROW(never_owned.debug_check_not_moved_from("umsync::widget"));

  handle a(3);
  handle b(std::move(a));
  CHECK(a.moved_from());  // NOLINT(bugprone-use-after-move)
  CHECK_FALSE(b.moved_from());
  try {
    a.debug_check_not_moved_from("umsync::widget");
    FAIL("no usage_error");
  } catch (umsync::usage_error const& e) {
    CHECK(std::string(e.what()).starts_with("umsync: use of a moved-from umsync::widget"));
  }

  handle c(std::move(a));  // moving a moved-from handle passes the state on
  CHECK(c.moved_from());
  a = handle(5);  // assigned a value: an owner again
  CHECK_FALSE(a.moved_from());
  b = std::move(a);
  CHECK(a.moved_from());
  CHECK_FALSE(b.moved_from());

  handle given_up(6);
  static_cast<void>(given_up.release());  // what a stream_edge's transfer does to its source
  CHECK(given_up.moved_from());
  handle reset(7);
  reset.reset();  // released in place: empty, not moved from
  CHECK_FALSE(reset.moved_from());
}

TEST_CASE("a moved-from buffer is refused by memory_of, launch and the copies; a buffer of zero elements is not")
{
  auto const s = umsync::per_thread_default_stream<compute>();
  umsync::stream_buffer<float, compute> zero(0, s);  // allocates nothing: no device needed
  CHECK_NOTHROW(static_cast<void>(umsync::memory_of(zero)));
  umsync::stream_buffer<float, compute> owner(std::move(zero));
  // Reads stay as documented: a moved-from buffer has 0 elements and a null data().
  CHECK(zero.size() == 0);  // NOLINT(bugprone-use-after-move)
  CHECK(zero.data() == nullptr);
  CHECK(zero.empty());
  CHECK_THROWS_WITH_AS(static_cast<void>(umsync::memory_of(zero)),
                       doctest::Contains("use of a moved-from umsync::stream_buffer"), umsync::usage_error);
  CHECK_THROWS_AS(static_cast<void>(umsync::memory_of(std::as_const(zero))), umsync::usage_error);
  CHECK_NOTHROW(static_cast<void>(umsync::memory_of(owner)));
  CHECK_THROWS_WITH_AS(umsync::launch(s, {}, writes, zero, std::size_t{0}),
                       doctest::Contains("use of a moved-from umsync::stream_buffer"), umsync::usage_error);
  CHECK_THROWS_AS(umsync::launch(s, {}, reads, std::as_const(zero), std::size_t{0}), umsync::usage_error);
  CHECK_THROWS_AS(umsync::copy_async(owner, zero, s), umsync::usage_error);
  CHECK_THROWS_AS(umsync::copy_async(zero, owner, s), umsync::usage_error);
  using buffer = umsync::stream_buffer<float, compute>;
  CHECK_THROWS_AS(buffer(zero, s), umsync::usage_error);  // a deep copy of it

  zero = std::move(owner);  // assigned: an owner again, and `owner` is the moved-from one
  CHECK_NOTHROW(static_cast<void>(umsync::memory_of(zero)));
  CHECK_THROWS_AS(static_cast<void>(umsync::memory_of(owner)), umsync::usage_error);  // NOLINT

  umsync::pinned_buffer<float> pinned(0);
  umsync::pinned_buffer<float> pinned_owner(std::move(pinned));
  CHECK_THROWS_WITH_AS(static_cast<void>(umsync::memory_of(pinned)),
                       doctest::Contains("use of a moved-from umsync::pinned_buffer"), umsync::usage_error);
  CHECK_NOTHROW(static_cast<void>(umsync::memory_of(pinned_owner)));

  umsync::host_registration<float> registration(std::span<float>{});
  umsync::host_registration<float> registration_owner(std::move(registration));
  CHECK_THROWS_WITH_AS(static_cast<void>(umsync::memory_of(registration)),
                       doctest::Contains("use of a moved-from umsync::host_registration"), umsync::usage_error);
  CHECK_NOTHROW(static_cast<void>(umsync::memory_of(registration_owner)));
}

TEST_CASE("a raw pointer into memory umsync allocated, launched on another stream without an edge, is reported")
{
  auto& checker = umsync::detail::debug::ordering_checker::instance();
  checker.reset();
  // A stream handle only the checker sees (the write is noted, not run) and a real one that needs
  // no stream to be created, and host memory standing for an allocation umsync registered. Not
  // the legacy stream as `first`: the per-thread stream synchronizes with it.
  static char first_stream = 0;
  umsync::stream_view<compute> const first{reinterpret_cast<cudaStream_t>(&first_stream)};
  auto const second = umsync::per_thread_default_stream<compute>();
  static float memory[64];
  umsync::detail::debug::note_allocated(memory, sizeof memory);
  std::source_location const written = std::source_location::current();  // a kernel wrote it on `first`
  umsync::detail::debug::note_access(memory, sizeof memory, first.get(), umsync::detail::debug::access::write, written);
  float* const raw = memory + 8;  // what data() + 8 would give
  unsigned const launch_line = std::source_location::current().line() + 2;
  try {
    umsync::launch(second, {}, writes, raw, std::size_t{8});
    FAIL("no ordering_error");
  } catch (umsync::ordering_error const& e) {
    MESSAGE(std::string(e.what()));
    CHECK(e.earlier().stream == static_cast<void const*>(first.get()));
    CHECK(e.earlier().where.line() == written.line());
    CHECK(e.later().stream == static_cast<void const*>(second.get()));
    CHECK(e.later().where.line() == launch_line);
  }
  // A kernel parameter of T const* reads: still unordered after the write.
  CHECK_THROWS_AS(umsync::launch(second, {}, reads, raw, std::size_t{8}), umsync::ordering_error);
  umsync::detail::debug::note_freed(memory);
  checker.reset();
}
